"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useProject } from "../context";
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
  Field,
  PageHeader,
  QueryState,
  fieldErrors,
  inputStyles,
  when,
} from "../ui";

type Domain = V1["getOcppDomain"];
type DomainRecord = Domain["records"][number];

const HOSTNAME_RULE =
  "A subdomain of a domain you control, like ocpp.your-brand.com: letters, digits, hyphens and dots, at least three labels. Not an IP address, a local name (.local, .test, …) or this service's own hostname.";

/** The browser's own check of the API's rule (`server/ocpp-domains/hostname.ts`), before sending. */
function hostnameRule(raw: string): string | null {
  const hostname = raw.trim().toLowerCase().replace(/\.$/, "");
  if (!hostname) return "Type the hostname chargers will connect to.";
  if (hostname.includes("*")) return "Give one hostname, not a wildcard.";
  if (/^[0-9.]+$/.test(hostname) || hostname.includes(":"))
    return "Give a hostname, not an IP address.";
  if (!/^[a-z0-9.-]+$/.test(hostname))
    return "Use letters, digits, hyphens and dots only (an internationalised name in its xn-- form).";
  const labels = hostname.split(".");
  if (labels.some((l) => !l || l.length > 63 || l.startsWith("-") || l.endsWith("-")))
    return "Each part between dots is 1 to 63 characters and does not start or end with a hyphen.";
  if (labels.length < 3)
    return "Use a subdomain (three parts or more, like ocpp.your-brand.com): a CNAME cannot sit at a domain's apex.";
  return null;
}

const STATUS_WORDS: Record<Domain["status"], string> = {
  awaiting_records: "Waiting for the DNS records",
  issuing_certificate: "Records found: getting a certificate",
  certificate_issued: "Certificate issued",
  records_missing: "Records missing: works until the certificate ends",
  lapsed: "Certificate ended: add the records again",
};

const CERTIFICATE_WORDS: Record<Domain["certificate"]["status"], string> = {
  none: "No certificate yet: one is ordered once both records are found.",
  ordering: "Being ordered from the certificate authority.",
  retrying: "The last order failed; it is tried again.",
  issued: "Issued.",
  renewing: "Issued; a renewal is being ordered.",
  expired: "Expired.",
  failed: "Ordering failed; it is ordered again a day later.",
};

const RESULT_WORDS: Record<DomainRecord["result"], string> = {
  unchecked: "Not checked yet",
  found: "Found",
  missing: "Missing",
  wrong: "Wrong value",
  error: "Lookup failed",
};

/** A domain still moving: the page reads it again until it settles. */
const settled = (d: Domain) =>
  d.ready &&
  d.status === "certificate_issued" &&
  !["ordering", "retrying", "renewing"].includes(d.certificate.status);

const domainColumns: CsvColumn<Domain>[] = [
  { header: "ID", value: (d) => d.id },
  { header: "Hostname", value: (d) => d.hostname },
  { header: "Status", value: (d) => d.status },
  { header: "Ready", value: (d) => (d.ready ? "yes" : "no") },
  { header: "DNS", value: (d) => d.dns.state },
  { header: "Checked", value: (d) => d.dns.checked_at },
  { header: "Certificate", value: (d) => d.certificate.status },
  { header: "Certificate ends", value: (d) => d.certificate.not_after },
  { header: "Connection URL template", value: (d) => d.connection_url_template },
  { header: "Created", value: (d) => d.created_at },
];

export function OcppDomainsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const project = useProject(tenantId);
  const domains = useQuery(
    trpc.v1.listOcppDomains.queryOptions(
      { params: { tenant_id: tenantId } },
      {
        refetchInterval: (query) =>
          query.state.data && query.state.data.data.every(settled) ? false : 3000,
      },
    ),
  );
  const denied = project.denied("stations:admin");
  return (
    <>
      <PageHeader
        title="OCPP domains"
        description="Your own hostname for chargers (wss://ocpp.your-brand.com/…), so you can change provider without touching every charger."
        actions={
          <ExportCsv
            filename={`ocpp-domains-${tenantId}.csv`}
            columns={domainColumns}
            // one answer holds every domain of the project (ten at most; the route does not page)
            load={async () => ({
              ...(await client.fetchQuery(
                trpc.v1.listOcppDomains.queryOptions({ params: { tenant_id: tenantId } }),
              )),
              next_cursor: null,
              has_more: false,
            })}
          />
        }
      />
      <AddDomain tenantId={tenantId} denied={project.loading ? null : denied} />
      <QueryState
        query={domains}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <Empty title="No OCPP domains yet">
            Add a hostname above; the page then lists the two DNS records to add.
          </Empty>
        }
      >
        {(d) => (
          <>
            {d.data.map((domain) => (
              <DomainCard key={domain.id} tenantId={tenantId} domain={domain} denied={denied} />
            ))}
          </>
        )}
      </QueryState>
    </>
  );
}

function AddDomain({ tenantId, denied }: { tenantId: number; denied: string | null }) {
  const trpc = useTRPC();
  const create = useV1Mutation(trpc.v1.createOcppDomain);
  const [hostname, setHostname] = useState("");
  const [key, setKey] = useState(() => newKey());
  const [checked, setChecked] = useState<string | null>(null);
  const apiField = fieldErrors(create.error).find((f) => f.field.endsWith("hostname"));
  const fieldError = checked ?? apiField?.message ?? undefined;
  const otherError = create.error && !apiField ? create.error : null;
  return (
    <Card title="Add a hostname" testId="add-domain">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const problem = hostnameRule(hostname);
          setChecked(problem);
          if (problem) return;
          create.reset();
          void create
            .run({
              params: { tenant_id: tenantId },
              body: { hostname: hostname.trim() },
              idempotencyKey: key,
            })
            .then(
              () => {
                setHostname("");
                setKey(newKey());
              },
              () => setKey(newKey()),
            );
        }}
        className="grid gap-3"
      >
        <Field label="Hostname" hint={HOSTNAME_RULE} error={fieldError}>
          {(props) => (
            <input
              {...props}
              name="hostname"
              autoComplete="off"
              spellCheck={false}
              placeholder="ocpp.your-brand.com"
              value={hostname}
              onChange={(e) => {
                setHostname(e.target.value);
                setChecked(null);
              }}
              className={inputStyles}
            />
          )}
        </Field>
        {otherError ? <ErrorBox error={otherError} labels={{ hostname: "Hostname" }} /> : null}
        <div className="flex flex-wrap items-center gap-2">
          <Button
            type="submit"
            variant="primary"
            disabled={create.isPending}
            disabledReason={denied}
          >
            {create.isPending ? "Adding…" : "Add hostname"}
          </Button>
          {denied ? (
            <span className="text-sm text-slate-600 dark:text-slate-400">{denied}</span>
          ) : null}
        </div>
      </form>
    </Card>
  );
}

const newKey = () =>
  `console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;

/** "Copy", then "Copied"; `what` (screen readers only) names what it copies: "the TXT record's value". */
function CopyButton({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      data-testid="copy"
      data-copy={text}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? "Copied" : "Copy"}
      <span className="sr-only"> {what}</span>
    </Button>
  );
}

function Copyable({ text, what }: { text: string; what: string }) {
  return (
    <span className="flex flex-wrap items-center gap-2">
      <code className="rounded bg-slate-100 px-1.5 py-0.5 break-all dark:bg-slate-800">{text}</code>
      <CopyButton text={text} what={what} />
    </span>
  );
}

function DomainCard({
  tenantId,
  domain,
  denied,
}: {
  tenantId: number;
  domain: Domain;
  denied: string | null;
}) {
  const trpc = useTRPC();
  const verify = useV1Mutation(trpc.v1.verifyOcppDomain);
  const remove = useV1Mutation(trpc.v1.deleteOcppDomain);
  const hintId = useId();
  const params = { tenant_id: tenantId, domain_id: domain.id };
  const { certificate } = domain;
  const order = certificate.order;
  return (
    <Card
      testId="domain"
      title={<span className="break-all">{domain.hostname}</span>}
      actions={<Badge value={STATUS_WORDS[domain.status]} testId="domain-status" />}
    >
      <section aria-label={`Records for ${domain.hostname}`}>
        <h3 className="font-medium">1. Add these two records in the DNS zone of the hostname</h3>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          At your DNS provider, add each record as shown. The CNAME brings chargers to this service;
          the TXT proves the zone is yours.
        </p>
        <ol className="mt-3 grid gap-3">
          {domain.records.map((r) => (
            <li
              key={r.type}
              data-testid="record"
              data-type={r.type}
              data-result={r.result}
              className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800"
            >
              <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-2">
                <dt className="font-medium">Type</dt>
                <dd>{r.type}</dd>
                <dt className="font-medium">Name</dt>
                <dd>
                  <Copyable text={r.name} what={`the ${r.type} record's name`} />
                </dd>
                <dt className="font-medium">Value</dt>
                <dd>
                  <Copyable text={r.value} what={`the ${r.type} record's value`} />
                </dd>
                <dt className="font-medium">Check</dt>
                <dd data-testid="record-check">
                  <Badge value={RESULT_WORDS[r.result]} />{" "}
                  <span className="break-words">{r.message}</span>
                  {domain.dns.checked_at ? (
                    <span className="block text-xs text-slate-600 dark:text-slate-400">
                      Checked {when(domain.dns.checked_at)}
                    </span>
                  ) : null}
                </dd>
              </dl>
            </li>
          ))}
        </ol>
      </section>

      <section className="mt-4" aria-label={`Checks for ${domain.hostname}`}>
        <h3 className="font-medium">2. Check the records</h3>
        <p className="mt-1 text-sm break-words" data-testid="dns-message">
          {domain.dns.message}
        </p>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {domain.dns.checked_at
            ? `Last checked ${when(domain.dns.checked_at)}. `
            : "Not checked yet. "}
          The service also checks by itself every few minutes; records can take a while to appear
          after you add them.
          {domain.dns.missing_since
            ? ` Missing since ${when(domain.dns.missing_since)}: the domain keeps working until its certificate ends, and is not renewed meanwhile.`
            : ""}
        </p>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <Button
            onClick={() => {
              verify.reset();
              void verify.run({ params }).catch(() => undefined);
            }}
            disabled={verify.isPending}
            disabledReason={denied}
            aria-describedby={hintId}
            data-testid="check-now"
          >
            {verify.isPending ? "Checking…" : "Check now"}
          </Button>
          <span id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
            {denied ?? "Asks DNS for both records now."}
          </span>
        </div>
        {verify.error ? (
          <div className="mt-2">
            <ErrorBox error={verify.error} />
          </div>
        ) : null}
      </section>

      <section className="mt-4" aria-label={`Certificate for ${domain.hostname}`}>
        <h3 className="font-medium">3. Certificate</h3>
        <dl className="mt-1 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
          <dt className="font-medium">State</dt>
          <dd data-testid="certificate-status">{CERTIFICATE_WORDS[certificate.status]}</dd>
          {certificate.not_after ? (
            <>
              <dt className="font-medium">Valid until</dt>
              <dd data-testid="certificate-expiry">{when(certificate.not_after)}</dd>
            </>
          ) : null}
          {certificate.renew_after ? (
            <>
              <dt className="font-medium">Renewed after</dt>
              <dd>{when(certificate.renew_after)}</dd>
            </>
          ) : null}
          {order?.error && order.status !== "succeeded" ? (
            <>
              <dt className="font-medium">Last error</dt>
              <dd className="break-words text-red-800 dark:text-red-300" data-testid="order-error">
                {order.error.message}
              </dd>
            </>
          ) : null}
          {order?.next_try_at && order.status === "pending" ? (
            <>
              <dt className="font-medium">Next try</dt>
              <dd>{when(order.next_try_at)}</dd>
            </>
          ) : null}
        </dl>
      </section>

      <section className="mt-4" aria-label={`Connection for ${domain.hostname}`}>
        <h3 className="font-medium">4. Chargers</h3>
        {domain.ready && domain.connection_url_template ? (
          <div className="mt-1 text-sm" data-testid="ready">
            <p>Ready: chargers can connect at</p>
            <Copyable text={domain.connection_url_template} what="the connection URL template" />
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              Replace {"{station_name}"} with the station&apos;s name.
            </p>
          </div>
        ) : (
          <p className="mt-1 text-sm" data-testid="not-ready">
            Not ready yet: chargers can use the hostname once a secure connection to it succeeds
            with its certificate. Keep using the station&apos;s connection URL until then.
          </p>
        )}
      </section>

      <div className="mt-4 flex flex-wrap items-center gap-2 border-t border-slate-200 pt-3 dark:border-slate-800">
        <ConfirmButton
          label="Delete"
          ariaLabel={`Delete ${domain.hostname}`}
          title={`Delete ${domain.hostname}?`}
          confirmLabel="Delete domain"
          disabledReason={denied}
          testId="delete-domain"
          run={() => remove.run({ params })}
        >
          Chargers connecting at {domain.hostname} will no longer be served by this service, its
          certificate and its key are deleted, and an order in flight ends without effect. The DNS
          records stay in your zone until you remove them. The hostname can be added again later.
        </ConfirmButton>
      </div>
    </Card>
  );
}
