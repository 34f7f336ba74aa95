import { z } from "zod";
import {
  createWebhook,
  disableWebhook,
  findWebhook,
  sendTestEvent,
} from "../../webhooks/manage-webhooks";
import { listDeliveries } from "../../webhooks/list-deliveries";
import { presentWebhook } from "../../webhooks/present-webhook";
import { createWebhookBody, deliverySchema, webhookSchema } from "../../webhooks/webhook-schema";
import { paginationQuery } from "../../lib/pagination";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Webhooks";
const webhookParams = z.object({ tenant_id: idParam, webhook_id: z.string().min(1).max(64) });

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
];
