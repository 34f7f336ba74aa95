"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { PROJECT_SCOPES, type Scope } from "@/server/access/scopes";
import { API_VERSIONS, type ApiVersion } from "@/server/versions";
import { useProject } from "../context";
import { SCOPE_PRESETS, SCOPE_WORDS } from "../access-words";
import { ConfirmButton } from "../confirm-button";
import { ExportCsv, type CsvColumn } from "../csv";
import { useV1Mutation, type V1 } from "../hooks";
import { useTRPC } from "../trpc";
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  PageHeader,
  QueryState,
  SecretOnce,
  SelectField,
  oneOf,
  Table,
  td,
  TextField,
  when,
} from "../ui";

/**
 * The columns of the keys table and of its CSV export: what identifies a key (its name and the
 * prefix every secret of it starts with), never the secret, which is shown once and not kept.
 */
const keyColumns: CsvColumn<V1["listProjectApiKeys"]["data"][number]>[] = [
  { header: "Key", value: (k) => k.name ?? "(unnamed)" },
  { header: "Prefix", value: (k) => `${k.prefix}…` },
  { header: "Scopes", value: (k) => k.scopes.join(", ") },
  { header: "Owner", value: (k) => k.owner?.email ?? "—" },
  { header: "Version", value: (k) => k.api_version },
  { header: "Created", value: (k) => k.created_at },
  { header: "Revoked", value: (k) => k.revoked_at },
];

export function ApiKeysPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const manages = project.may.manage_project_keys;
  const keys = useQuery(
    trpc.v1.listProjectApiKeys.queryOptions(
      { params: { tenant_id: tenantId } },
      { enabled: manages },
    ),
  );
  const client = useQueryClient();
  const create = useV1Mutation(trpc.v1.createProjectApiKey);
  const revoke = useV1Mutation(trpc.v1.revokeProjectApiKey);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["stations:read", "billing:read", "webhooks:read"]);
  const [version, setVersion] = useState<ApiVersion | "">("");
  if (!project.loading && !manages) {
    return (
      <>
        <PageHeader title="API keys" />
        <Empty title="Only owners, admins and developers manage API keys">
          Your role: {project.who}.
        </Empty>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys for your backend. Each acts for the person who made it, within their role."
        actions={
          manages ? (
            <ExportCsv
              filename={`api-keys-${tenantId}.csv`}
              columns={keyColumns}
              // one answer holds every key of the project (the route does not page)
              load={async () => ({
                ...(await client.fetchQuery(
                  trpc.v1.listProjectApiKeys.queryOptions({ params: { tenant_id: tenantId } }),
                )),
                next_cursor: null,
                has_more: false,
              })}
            />
          ) : null
        }
      />
      <Card title="New key">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run({
                params: { tenant_id: tenantId },
                body: {
                  name: name || undefined,
                  scopes,
                  ...(version ? { api_version: version } : {}),
                },
              })
              .then(
                () => setName(""),
                () => undefined,
              );
          }}
        >
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={100}
          />
          <fieldset className="mt-3">
            <legend className="text-sm font-medium">Scopes</legend>
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              Start from a preset, then tick or untick single scopes. A key never does more than
              your role allows.
            </p>
            <div className="mt-2 flex flex-wrap gap-2" role="group" aria-label="Scope presets">
              {SCOPE_PRESETS.map((p) => {
                const chosen = p.scopes.filter((s) => project.can(s));
                const on =
                  chosen.length === scopes.length && chosen.every((s) => scopes.includes(s));
                return (
                  <Button
                    key={p.name}
                    aria-pressed={on}
                    aria-describedby={`preset-${p.name.replace(/ /g, "-")}`}
                    className={on ? "ring-2 ring-teal-600" : ""}
                    onClick={() => setScopes([...chosen])}
                  >
                    {p.name}
                  </Button>
                );
              })}
            </div>
            <ul className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              {SCOPE_PRESETS.map((p) => (
                <li key={p.name} id={`preset-${p.name.replace(/ /g, "-")}`}>
                  <strong>{p.name}</strong>: {p.words}
                </li>
              ))}
            </ul>
            <div className="mt-3 grid gap-2 sm:grid-cols-2">
              {PROJECT_SCOPES.map((s) => (
                <label key={s} className="flex items-start gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="mt-0.5 size-5 shrink-0"
                    checked={scopes.includes(s)}
                    disabled={!project.can(s)}
                    aria-describedby={`scope-${s.replace(":", "-")}`}
                    onChange={(e) =>
                      setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                    }
                  />
                  <span>
                    <code className={project.can(s) ? "" : "text-slate-500"}>{s}</code>
                    <span
                      id={`scope-${s.replace(":", "-")}`}
                      className="block text-xs text-slate-600 dark:text-slate-400"
                    >
                      {SCOPE_WORDS[s]}
                      {project.can(s) ? "" : " Your role does not hold it."}
                    </span>
                  </span>
                </label>
              ))}
            </div>
            {scopes.length === 0 ? (
              <p className="mt-2 text-sm text-red-700 dark:text-red-300" data-testid="field-error">
                Tick at least one scope.
              </p>
            ) : null}
          </fieldset>
          <div className="mt-3 w-fit max-w-full">
            <SelectField
              label="API version"
              hint="Latest moves with each new release; a pinned key keeps its version's answers."
              value={version}
              onChange={(e) => setVersion(oneOf(["", ...API_VERSIONS], e.target.value, ""))}
            >
              <option value="">Latest ({API_VERSIONS[0]})</option>
              {API_VERSIONS.map((v) => (
                <option key={v} value={v}>
                  Pinned to {v}
                </option>
              ))}
            </SelectField>
          </div>
          <Button
            type="submit"
            variant="primary"
            className="mt-3"
            disabled={create.isPending || scopes.length === 0}
          >
            Create key
          </Button>
        </form>
        {create.error ? <ErrorBox error={create.error} /> : null}
        {create.data?.secret ? (
          <div className="mt-3">
            <SecretOnce
              label={`Secret of ${create.data.name ?? create.data.id}`}
              secret={create.data.secret}
            />
          </div>
        ) : null}
      </Card>
      <QueryState
        query={keys}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No keys yet" />}
      >
        {(d) => (
          <Table
            head={[...keyColumns.filter((c) => c.header !== "Revoked").map((c) => c.header), ""]}
          >
            {d.data.map((k) => (
              <tr key={k.id} data-testid="api-key-row">
                <td className={td}>{k.name ?? "(unnamed)"}</td>
                <td className={td}>
                  <code className="text-xs break-all">{k.prefix}…</code>
                </td>
                <td className={`${td} text-xs`}>{k.scopes.join(", ")}</td>
                <td className={td}>{k.owner?.email ?? "—"}</td>
                <td className={td}>{k.api_version}</td>
                <td className={td}>{when(k.created_at)}</td>
                <td className={td}>
                  {k.revoked_at ? (
                    <Badge value="revoked" />
                  ) : (
                    <ConfirmButton
                      label="Revoke…"
                      ariaLabel={`Revoke ${k.name ?? k.prefix}`}
                      title={`Revoke ${k.name ?? "this key"}?`}
                      confirmLabel="Revoke key"
                      run={() => revoke.run({ params: { tenant_id: tenantId, key_id: k.id } })}
                    >
                      Every request made with <code>{k.prefix}…</code> is refused from now on (401);
                      a backend or script still using it stops working. A revoked key cannot be
                      restored: make a new one and give it the new secret.
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
      {revoke.error ? <ErrorBox error={revoke.error} /> : null}
    </>
  );
}
