import { z } from "zod";
import {
  createWebhook,
  disableWebhook,
  findWebhook,
  sendTestEvent,
} from "../../webhooks/manage-webhooks";
import {
  enableWebhook,
  getDelivery,
  resendDelivery,
  updateWebhook,
} from "../../webhooks/edit-webhooks";
import { listDeliveries } from "../../webhooks/list-deliveries";
import { presentWebhook } from "../../webhooks/present-webhook";
import {
  createWebhookBody,
  deliveryDetailSchema,
  deliverySchema,
  updateWebhookBody,
  webhookSchema,
} from "../../webhooks/webhook-schema";
import { paginationQuery } from "../../lib/pagination";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Webhooks";
const webhookParams = z.object({ tenant_id: idParam, webhook_id: z.string().min(1).max(64) });
const deliveryParams = webhookParams.extend({
  delivery_id: z.string().regex(/^dlv_[0-9A-Za-z]{1,40}$/, "must be a delivery ID"),
});

export const webhookRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/webhooks",
    operationId: "createWebhook",
    summary: "Register a webhook endpoint",
    description:
      "201 with the signing `secret`, shown only here. `url` must be a public HTTPS hostname with a valid port (443 in production); IP literals, local names and this service's own hostnames are refused (422 `webhook_url_invalid`). Needs `webhooks:write` and the read scope of every event type subscribed. Ten active endpoints per tenant. `stations` limits station events (connection, boot, configuration, credentials), connector, fault, meter and display events; `meter.sample_interval_seconds` (10 to 3600, default 60) throttles meter samples per transaction, Transaction.Begin and Transaction.End always delivered.",
    tag,
    auth: "tenant",
    scopes: ["webhooks:write"],
    params: tenantParams,
    body: createWebhookBody,
    status: 201,
    response: webhookSchema,
    errors: ["webhook_url_invalid", "webhook_limit_reached", "insufficient_scope"],
    handler: async ({ params, body, db, principal }) => ({
      body: await createWebhook({ tenantId: params.tenant_id, input: body, principal, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/webhooks",
    operationId: "listWebhooks",
    summary: "List webhook endpoints (never their secrets)",
    tag,
    auth: "tenant",
    scopes: ["webhooks:read"],
    params: tenantParams,
    status: 200,
    response: z.object({ data: z.array(webhookSchema) }),
    handler: async ({ params, db }) => ({
      body: {
        data: (
          await db.webhookEndpoint.findMany({
            where: { tenantId: params.tenant_id },
            orderBy: { createdAt: "asc" },
          })
        ).map((w) => presentWebhook(w)),
      },
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}",
    operationId: "getWebhook",
    summary: "Read a webhook endpoint",
    tag,
    auth: "tenant",
    scopes: ["webhooks:read"],
    params: webhookParams,
    status: 200,
    response: webhookSchema,
    handler: async ({ params, db }) => ({
      body: presentWebhook(await findWebhook(db, params.tenant_id, params.webhook_id)),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}",
    operationId: "disableWebhook",
    summary: "Disable a webhook endpoint",
    description:
      "The endpoint becomes `disabled`; its pending deliveries fail; its history stays readable.",
    tag,
    auth: "tenant",
    scopes: ["webhooks:write"],
    params: webhookParams,
    status: 200,
    response: webhookSchema,
    handler: async ({ params, db }) => ({
      body: await disableWebhook({ tenantId: params.tenant_id, webhookId: params.webhook_id, db }),
    }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}",
    operationId: "updateWebhook",
    summary: "Change a webhook endpoint's url, events, description, stations or meter interval",
    description:
      "What is given replaces what was (`stations: null` lifts the filter), with the rules of creation: the URL's (422 `webhook_url_invalid`), the read scope of every event subscribed, the tenant's stations. The signing secret and the pinned version stay; deliveries still queued go to the new URL.",
    tag,
    auth: "tenant",
    scopes: ["webhooks:write"],
    params: webhookParams,
    body: updateWebhookBody,
    status: 200,
    response: webhookSchema,
    errors: ["webhook_url_invalid", "insufficient_scope"],
    handler: async ({ params, body, db, principal }) => ({
      body: await updateWebhook({
        tenantId: params.tenant_id,
        webhookId: params.webhook_id,
        input: body,
        principal,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}/enable",
    operationId: "enableWebhook",
    summary: "Re-enable a disabled webhook endpoint",
    description:
      "The endpoint becomes `active` again and receives the events appended from now on; deliveries failed while it was disabled stay failed (resend each). An active endpoint answers as it is. 409 `webhook_limit_reached` past ten active endpoints.",
    tag,
    auth: "tenant",
    scopes: ["webhooks:write"],
    params: webhookParams,
    status: 200,
    response: webhookSchema,
    errors: ["webhook_limit_reached"],
    handler: async ({ params, db }) => ({
      body: await enableWebhook({ tenantId: params.tenant_id, webhookId: params.webhook_id, db }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}/test",
    operationId: "testWebhook",
    summary: "Queue a signed webhook.test delivery to this endpoint",
    tag,
    auth: "tenant",
    scopes: ["webhooks:write"],
    params: webhookParams,
    status: 202,
    response: z.object({ event_id: z.string(), delivery_id: z.string(), status: z.string() }),
    handler: async ({ params, db }) => ({
      body: await sendTestEvent({ tenantId: params.tenant_id, webhookId: params.webhook_id, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "Deliveries to this endpoint, newest first, with every attempt",
    description: "Page with `after` = the previous page's `next_cursor` (a delivery ID).",
    tag,
    auth: "tenant",
    scopes: ["webhooks:read"],
    params: webhookParams,
    query: z.object({
      limit: paginationQuery.shape.limit,
      after: z
        .string()
        .regex(/^dlv_[0-9A-Za-z]+$/)
        .optional(),
    }),
    status: 200,
    response: z.object({
      data: z.array(deliverySchema),
      next_cursor: z.string().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db }) => ({
      body: await listDeliveries({
        tenantId: params.tenant_id,
        webhookId: params.webhook_id,
        limit: query.limit,
        after: query.after,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}/deliveries/{delivery_id}",
    operationId: "getWebhookDelivery",
    summary: "One delivery: its attempts and the body each attempt sends",
    description:
      "`body` is the event as the endpoint's pinned version shows it, the JSON every attempt signs and sends (null once retention removed the event). Each attempt shows the receiver's HTTP status or the error; the receiver's answer body is not kept.",
    tag,
    auth: "tenant",
    scopes: ["webhooks:read"],
    params: deliveryParams,
    status: 200,
    response: deliveryDetailSchema,
    handler: async ({ params, db }) => ({
      body: await getDelivery({
        tenantId: params.tenant_id,
        webhookId: params.webhook_id,
        deliveryId: params.delivery_id,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/resend",
    operationId: "resendWebhookDelivery",
    summary: "Send a settled delivery again",
    description:
      "An acknowledged or failed delivery is queued again: new attempts of the same event (the same `Service-Event-Id`, signed afresh), journaled after the earlier ones and retried on the usual schedule. A delivery still queued answers as it is. 422 when the endpoint is disabled (enable it first) or retention removed the event.",
    tag,
    auth: "tenant",
    scopes: ["webhooks:write"],
    params: deliveryParams,
    status: 202,
    response: deliveryDetailSchema,
    handler: async ({ params, db }) => ({
      body: await resendDelivery({
        tenantId: params.tenant_id,
        webhookId: params.webhook_id,
        deliveryId: params.delivery_id,
        db,
      }),
    }),
  }),
];
