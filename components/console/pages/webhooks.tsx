"use client";

import { useState } from "react";
import { EVENT_TYPES } from "@/server/webhooks/webhook-schema";
import { useProject } from "../context";
import { useV1, useV1Mutation } from "../hooks";
import { newRequestKey } from "../trpc";
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

type Webhook = {
  id: string;
  url: string;
  events: string[];
  description: string;
  status: string;
  created_at: string;
  secret: string | null;
};
type Delivery = {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_retry_at: string | null;
  last_http_status: number | null;
  last_error: string | null;
  created_at: string;
  attempt_log: {
    number: number;
    started_at: string;
    http_status: number | null;
    error: string | null;
  }[];
};

export function WebhooksPage({ tenantId }: { tenantId: number }) {
  const project = useProject(tenantId);
  const webhooks = useV1<{ data: Webhook[] }>("listWebhooks", { params: { tenant_id: tenantId } });
  const create = useV1Mutation<Webhook>("createWebhook");
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["webhook.test", "connector.status_changed"]);
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
                idempotencyKey: newRequestKey(),
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
              {Object.keys(EVENT_TYPES).map((t) => (
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
  webhook: Webhook;
  denied: string | null;
  onShow: () => void;
  shown: boolean;
}) {
  const test = useV1Mutation<unknown>("testWebhook");
  const disable = useV1Mutation<Webhook>("disableWebhook");
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
          void test.run({ params, idempotencyKey: newRequestKey() }).then(
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
  const deliveries = useV1<{ data: Delivery[] }>(
    "listWebhookDeliveries",
    { params: { tenant_id: tenantId, webhook_id: webhookId } },
    { refetchInterval: 2_000 },
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
