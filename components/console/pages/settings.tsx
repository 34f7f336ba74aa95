"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { useTRPC } from "../trpc";
import {
  Button,
  Card,
  ErrorBox,
  PageHeader,
  QueryState,
  SelectField,
  oneOf,
  TextField,
} from "../ui";

export function SettingsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const tenant = useQuery(trpc.v1.getTenant.queryOptions({ params: { tenant_id: tenantId } }));
  return (
    <>
      <PageHeader title="Project settings" />
      <QueryState query={tenant}>{(t) => <SettingsForm key={t.id} tenant={t} />}</QueryState>
    </>
  );
}

function SettingsForm({ tenant }: { tenant: V1["getTenant"] }) {
  const trpc = useTRPC();
  const project = useProject(tenant.id);
  const update = useV1Mutation(trpc.v1.updateTenant);
  const [name, setName] = useState(tenant.name);
  const [mode, setMode] = useState(tenant.authorization_mode);
  const manages = project.may.manage_team;
  return (
    <Card>
      <form
        className="grid max-w-md gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void update
            .run({ params: { tenant_id: tenant.id }, body: { name, authorization_mode: mode } })
            .catch(() => undefined);
        }}
      >
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
        />
        <SelectField
          label="Charger Authorize requests"
          value={mode}
          onChange={(e) =>
            setMode(oneOf(["accept_all", "known_tokens"], e.target.value, "accept_all"))
          }
        >
          <option value="accept_all">Accept every token</option>
          <option value="known_tokens">Accept only tokens this service issued</option>
        </SelectField>
        <div>
          <Button
            type="submit"
            variant="primary"
            disabledReason={manages ? null : "Only owners and admins change projects."}
          >
            Save
          </Button>
        </div>
        {update.error ? <ErrorBox error={update.error} /> : null}
        {update.isSuccess ? <p className="text-sm text-emerald-700">Saved.</p> : null}
      </form>
    </Card>
  );
}
