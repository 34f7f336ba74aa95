"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { eventTypeSchema, type EventType } from "@/server/events/event-types";
import { ConfirmButton } from "../confirm-button";
import { useProject } from "../context";
import { ExportCsv, type CsvColumn } from "../csv";
import { StationLink } from "../links";
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
  Table,
  td,
  TextField,
  when,
} from "../ui";

export function WebhooksPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const webhooks = useQuery(trpc.v1.listWebhooks.queryOptions({ params: { tenant_id: tenantId } }));
  const create = useV1Mutation(trpc.v1.createWebhook);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<EventType[]>(["webhook.test", "connector.status_changed"]);
  const [open, setOpen] = useState<string | null>(null);
  const denied = project.denied("webhooks:write");

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signed deliveries of this project's events to your endpoints."
      />
      <Card title="New endpoint">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run({
                params: { tenant_id: tenantId },
                body: { url, events },
              })
              .then(
                () => setUrl(""),
                () => undefined,
              );
          }}
        >
          <TextField
            label="URL"
            type="url"
            placeholder="https://example.com/hooks/charging"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required
          />
          <fieldset className="mt-3">
            <legend className="text-sm font-medium">Events</legend>
            <div className="mt-1 grid gap-1 sm:grid-cols-3">
              {eventTypeSchema.options.map((t) => (
                <label key={t} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={events.includes(t)}
                    onChange={(e) =>
                      setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t))
                    }
                  />
                  {t}
                </label>
              ))}
            </div>
          </fieldset>
          <Button
            type="submit"
            variant="primary"
            className="mt-3"
            disabledReason={denied}
            disabled={create.isPending || events.length === 0}
          >
            Create endpoint
          </Button>
        </form>
        {create.error ? <ErrorBox error={create.error} /> : null}
        {create.data?.secret ? (
          <div className="mt-3">
            <SecretOnce label="Signing secret" secret={create.data.secret} />
          </div>
        ) : null}
      </Card>
      <QueryState
        query={webhooks}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No endpoints yet" />}
      >
        {(d) => (
          <div className="space-y-4">
            {d.data.map((w) => (
              <Card
                key={w.id}
                testId="webhook-row"
                title={<span className="text-base break-all">{w.url}</span>}
                actions={<Badge value={w.status} />}
              >
                {w.description ? <p className="text-sm">{w.description}</p> : null}
                <p className="text-xs text-slate-600 dark:text-slate-400">
                  {w.events.join(", ")} ·{" "}
                  <StationsFilter tenantId={tenantId} stations={w.stations} />
                </p>
                <WebhookActions
                  tenantId={tenantId}
                  webhook={w}
                  denied={denied}
                  onShow={() => setOpen(open === w.id ? null : w.id)}
                  shown={open === w.id}
                />
                {open === w.id ? (
                  <Deliveries tenantId={tenantId} webhook={w} denied={denied} />
                ) : null}
              </Card>
            ))}
          </div>
        )}
      </QueryState>
    </>
  );
}

function WebhookActions({
  tenantId,
  webhook,
  denied,
  onShow,
  shown,
}: {
  tenantId: number;
  webhook: V1["getWebhook"];
  denied: string | null;
  onShow: () => void;
  shown: boolean;
}) {
  const trpc = useTRPC();
  const test = useV1Mutation(trpc.v1.testWebhook);
  const disable = useV1Mutation(trpc.v1.disableWebhook);
  const enable = useV1Mutation(trpc.v1.enableWebhook);
  const [editing, setEditing] = useState(false);
  const params = { tenant_id: tenantId, webhook_id: webhook.id };
  return (
    <>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button onClick={onShow} aria-expanded={shown}>
          {shown ? "Hide deliveries" : "Deliveries"}
        </Button>
        <Button
          disabledReason={
            denied ?? (webhook.status !== "active" ? "The endpoint is disabled." : null)
          }
          onClick={() =>
            void test.run({ params }).then(
              () => (shown ? undefined : onShow()),
              () => undefined,
            )
          }
        >
          Send test
        </Button>
        <Button
          disabledReason={denied}
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
        >
          {editing ? "Close editor" : "Edit"}
        </Button>
        {webhook.status === "active" ? (
          <ConfirmButton
            label="Disable"
            title="Disable this endpoint?"
            confirmLabel="Disable endpoint"
            disabledReason={denied}
            run={() => disable.run({ params })}
          >
            <span className="break-all">{webhook.url}</span> receives no more events from now on,
            and the deliveries still waiting for it fail (you can resend them after enabling it
            again). Its history stays readable.
          </ConfirmButton>
        ) : (
          <Button
            variant="primary"
            disabledReason={denied}
            disabled={enable.isPending}
            onClick={() => void enable.run({ params }).catch(() => undefined)}
          >
            Enable again
          </Button>
        )}
      </div>
      {test.error ? <ErrorBox error={test.error} /> : null}
      {enable.error ? <ErrorBox error={enable.error} /> : null}
      {editing ? (
        <EditWebhook tenantId={tenantId} webhook={webhook} onDone={() => setEditing(false)} />
      ) : null}
    </>
  );
}

/** The station filter in names, each a link. */
function StationsFilter({ tenantId, stations }: { tenantId: number; stations: number[] | null }) {
  if (!stations) return <>all stations</>;
  return (
    <>
      stations{" "}
      {stations.map((id, i) => (
        <span key={id}>
          {i > 0 ? ", " : ""}
          <StationLink tenantId={tenantId} stationId={id} />
        </span>
      ))}
    </>
  );
}

function EditWebhook({
  tenantId,
  webhook,
  onDone,
}: {
  tenantId: number;
  webhook: V1["getWebhook"];
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const update = useV1Mutation(trpc.v1.updateWebhook);
  const stationList = useQuery(
    trpc.v1.listStations.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  const [url, setUrl] = useState(webhook.url);
  const [description, setDescription] = useState(webhook.description);
  const [events, setEvents] = useState<string[]>(webhook.events);
  const [stations, setStations] = useState<number[]>(webhook.stations ?? []);
  return (
    <form
      className="mt-4 rounded-md border border-slate-200 p-3 dark:border-slate-800"
      aria-label={`Edit ${webhook.url}`}
      onSubmit={(e) => {
        e.preventDefault();
        void update
          .run({
            params: { tenant_id: tenantId, webhook_id: webhook.id },
            body: {
              url,
              description,
              events: events.flatMap((t) => {
                const parsed = eventTypeSchema.safeParse(t);
                return parsed.success ? [parsed.data] : [];
              }),
              stations: stations.length ? stations : null,
            },
          })
          .then(onDone, () => undefined);
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} />
        <TextField
          label="Description"
          value={description}
          maxLength={500}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <fieldset className="mt-3">
        <legend className="text-sm font-medium">Events</legend>
        <div className="mt-1 grid gap-1 sm:grid-cols-3">
          {eventTypeSchema.options.map((t) => (
            <label key={t} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={events.includes(t)}
                onChange={(e) =>
                  setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t))
                }
              />
              {t}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="mt-3">
        <legend className="text-sm font-medium">
          Stations (station, connector, fault and meter events); none ticked: all stations
        </legend>
        <div className="mt-1 grid gap-1 sm:grid-cols-3">
          {(stationList.data?.data ?? []).map((st) => (
            <label key={st.id} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={stations.includes(st.id)}
                onChange={(e) =>
                  setStations(
                    e.target.checked ? [...stations, st.id] : stations.filter((x) => x !== st.id),
                  )
                }
              />
              {st.name}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="mt-3 flex gap-2">
        <Button
          type="submit"
          variant="primary"
          disabled={update.isPending}
          disabledReason={events.length === 0 ? "Choose at least one event." : null}
        >
          Save changes
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
      {update.error ? <ErrorBox error={update.error} /> : null}
    </form>
  );
}

type Delivery = V1["listWebhookDeliveries"]["data"][number];

/** A delivery's last answer in words: the receiver's HTTP status, or why there was none. */
const lastAnswer = (dl: Delivery) => dl.last_http_status ?? dl.last_error ?? "—";

/**
 * The deliveries table's columns, in its order, then what the file adds (the delivery, its event
 * and when it settled). Only what the list shows: no signing secret, no body.
 */
const deliveryColumns: CsvColumn<Delivery>[] = [
  { header: "Event", value: (dl) => dl.event_type },
  { header: "Status", value: (dl) => dl.status },
  { header: "Attempts", value: (dl) => dl.attempts },
  { header: "Last HTTP", value: lastAnswer },
  { header: "Next retry", value: (dl) => dl.next_retry_at },
  { header: "Created", value: (dl) => dl.created_at },
  { header: "Delivery", value: (dl) => dl.id },
  { header: "Event ID", value: (dl) => dl.event_id },
  { header: "Completed", value: (dl) => dl.completed_at },
];
const SHOWN = 6; // the columns the table shows, before the Details button

function Deliveries({
  tenantId,
  webhook,
  denied,
}: {
  tenantId: number;
  webhook: V1["getWebhook"];
  denied: string | null;
}) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [open, setOpen] = useState<string | null>(null);
  const params = { tenant_id: tenantId, webhook_id: webhook.id };
  const deliveries = useQuery(
    trpc.v1.listWebhookDeliveries.queryOptions({ params }, { refetchInterval: 2_000 }),
  );
  return (
    <div className="mt-4">
      <div className="mb-2 flex justify-end">
        <ExportCsv
          filename={`deliveries-${webhook.id}.csv`}
          columns={deliveryColumns}
          load={(after: string | undefined) =>
            client.fetchQuery(
              trpc.v1.listWebhookDeliveries.queryOptions({
                params,
                query: { limit: 100, ...(after ? { after } : {}) },
              }),
            )
          }
        />
      </div>
      <QueryState
        query={deliveries}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No deliveries yet" />}
      >
        {(d) => (
          <>
            <Table
              label="Deliveries"
              head={[...deliveryColumns.slice(0, SHOWN).map((c) => c.header), ""]}
            >
              {d.data.map((dl) => (
                <tr key={dl.id} data-testid="delivery-row">
                  <td className={td}>{dl.event_type}</td>
                  <td className={td}>
                    <Badge testId="delivery-status" value={dl.status} />
                  </td>
                  <td className={td}>
                    {dl.attempts}
                    <ul className="text-xs text-slate-600 dark:text-slate-400">
                      {dl.attempt_log.map((a) => (
                        <li key={a.number}>
                          #{a.number} {when(a.started_at)}: {a.http_status ?? a.error ?? "—"}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td className={td}>{lastAnswer(dl)}</td>
                  <td className={td}>{when(dl.next_retry_at)}</td>
                  <td className={td}>{when(dl.created_at)}</td>
                  <td className={td}>
                    <Button
                      aria-expanded={open === dl.id}
                      aria-label={`Details of delivery ${dl.id}`}
                      onClick={() => setOpen(open === dl.id ? null : dl.id)}
                    >
                      Details
                    </Button>
                  </td>
                </tr>
              ))}
            </Table>
            {open && d.data.some((x) => x.id === open) ? (
              <DeliveryDetail
                key={open}
                tenantId={tenantId}
                webhook={webhook}
                deliveryId={open}
                denied={denied}
              />
            ) : null}
          </>
        )}
      </QueryState>
    </div>
  );
}

/** One delivery: the body every attempt sends, each attempt's answer, and a resend. */
function DeliveryDetail({
  tenantId,
  webhook,
  deliveryId,
  denied,
}: {
  tenantId: number;
  webhook: V1["getWebhook"];
  deliveryId: string;
  denied: string | null;
}) {
  const trpc = useTRPC();
  const params = { tenant_id: tenantId, webhook_id: webhook.id, delivery_id: deliveryId };
  const delivery = useQuery(
    trpc.v1.getWebhookDelivery.queryOptions({ params }, { refetchInterval: 2_000 }),
  );
  const resend = useV1Mutation(trpc.v1.resendWebhookDelivery);
  return (
    <section
      className="mt-3 rounded-md border border-slate-200 p-3 dark:border-slate-800"
      aria-label={`Delivery ${deliveryId}`}
      data-testid="delivery-detail"
    >
      <QueryState query={delivery}>
        {(dl) => (
          <>
            <h3 className="font-medium">
              Delivery <code className="break-all">{dl.id}</code> of event{" "}
              <code className="break-all">{dl.event_id}</code>
            </h3>
            <h4 className="mt-3 text-sm font-medium">Answers</h4>
            {dl.attempt_log.length === 0 ? (
              <p className="text-sm">Not attempted yet.</p>
            ) : (
              <ul className="text-sm" data-testid="delivery-answers">
                {dl.attempt_log.map((a) => (
                  <li key={a.number}>
                    Attempt {a.number}, {when(a.started_at)}:{" "}
                    {a.http_status !== null
                      ? `HTTP ${a.http_status}${a.http_status >= 200 && a.http_status < 300 ? " (acknowledged)" : ""}`
                      : `no answer (${a.error ?? "failed"})`}
                  </li>
                ))}
              </ul>
            )}
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              The receiver&apos;s status is kept; the body of its answer is not read.
            </p>
            <h4 className="mt-3 text-sm font-medium">Body sent (signed, every attempt)</h4>
            {dl.body ? (
              <pre
                data-testid="delivery-body"
                tabIndex={0}
                aria-label="Body sent"
                className="mt-1 max-h-80 overflow-auto rounded bg-slate-100 p-2 text-xs break-all whitespace-pre-wrap dark:bg-slate-950"
              >
                {JSON.stringify(dl.body, null, 2)}
              </pre>
            ) : (
              <p className="text-sm">The event is no longer kept (retention).</p>
            )}
            <div className="mt-3 flex flex-wrap items-center gap-2">
              <Button
                disabledReason={
                  denied ??
                  (webhook.status !== "active"
                    ? "The endpoint is disabled: enable it first."
                    : dl.status === "queued"
                      ? "Still being delivered: its next attempt is coming."
                      : !dl.body
                        ? "The event is no longer kept."
                        : null)
                }
                disabled={resend.isPending}
                onClick={() => void resend.run({ params }).catch(() => undefined)}
              >
                Resend
              </Button>
              <span className="text-xs text-slate-600 dark:text-slate-400">
                A new attempt of the same event (same Service-Event-Id), signed afresh.
              </span>
            </div>
            {resend.error ? <ErrorBox error={resend.error} /> : null}
          </>
        )}
      </QueryState>
    </section>
  );
}
