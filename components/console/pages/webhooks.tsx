"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { eventTypeSchema, type EventType } from "@/server/events/event-types";
import { useProject } from "../context";
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
                <p className="text-xs text-slate-500">{w.events.join(", ")}</p>
                <WebhookActions
                  tenantId={tenantId}
                  webhook={w}
                  denied={denied}
                  onShow={() => setOpen(open === w.id ? null : w.id)}
                  shown={open === w.id}
                />
                {open === w.id ? <Deliveries tenantId={tenantId} webhookId={w.id} /> : null}
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
  const params = { tenant_id: tenantId, webhook_id: webhook.id };
  return (
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
        variant="danger"
        disabledReason={denied ?? (webhook.status !== "active" ? "Already disabled." : null)}
        onClick={() => void disable.run({ params }).catch(() => undefined)}
      >
        Disable
      </Button>
      {test.error ? <ErrorBox error={test.error} /> : null}
      {disable.error ? <ErrorBox error={disable.error} /> : null}
    </div>
  );
}

function Deliveries({ tenantId, webhookId }: { tenantId: number; webhookId: string }) {
  const trpc = useTRPC();
  const deliveries = useQuery(
    trpc.v1.listWebhookDeliveries.queryOptions(
      { params: { tenant_id: tenantId, webhook_id: webhookId } },
      { refetchInterval: 2_000 },
    ),
  );
  return (
    <div className="mt-4">
      <QueryState
        query={deliveries}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No deliveries yet" />}
      >
        {(d) => (
          <Table head={["Event", "Status", "Attempts", "Last HTTP", "Next retry", "Created"]}>
            {d.data.map((dl) => (
              <tr key={dl.id} data-testid="delivery-row">
                <td className={td}>{dl.event_type}</td>
                <td className={td}>
                  <Badge testId="delivery-status" value={dl.status} />
                </td>
                <td className={td}>
                  {dl.attempts}
                  <ul className="text-xs text-slate-500">
                    {dl.attempt_log.map((a) => (
                      <li key={a.number}>
                        #{a.number} {when(a.started_at)}: {a.http_status ?? a.error ?? "—"}
                      </li>
                    ))}
                  </ul>
                </td>
                <td className={td}>{dl.last_http_status ?? dl.last_error ?? "—"}</td>
                <td className={td}>{when(dl.next_retry_at)}</td>
                <td className={td}>{when(dl.created_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </div>
  );
}
