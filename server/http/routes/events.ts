import { z } from "zod";
import { eventSchema, listEvents } from "../../events/list-events";
import { DomainError } from "../../errors";
import { requireWorkspaceScopes, resolveWorkspaceAccess } from "../../access/workspace-access";
import { ensureSandbox } from "../../sandbox/provision";
import { listWorkspaceEvents, workspaceEventSchema } from "../../sandbox/workspace-events";
import { resourceIdQuery } from "../../lib/int4";
import { paginationQuery } from "../../lib/pagination";
import { tenantParams } from "../params";
import { defineRoute } from "../route";

const eventsQuery = paginationQuery.extend({
  type: z
    .string()
    .min(1)
    .max(500)
    .regex(/^[a-z_.]+(,[a-z_.]+)*$/, "must be event types separated by commas")
    .optional(),
  station_id: resourceIdQuery.optional(),
  resource_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "must be a resource ID")
    .optional()
    .describe("the ID the event is about: a payment, bill, station, operation, sandbox session..."),
});

/** The project log's filters: the shared ones, type families, newest first, and a date range. */
const tenantEventsQuery = eventsQuery.extend({
  type: z
    .string()
    .min(1)
    .max(500)
    .regex(
      /^([a-z_.]+|[a-z_]+\.\*)(,([a-z_.]+|[a-z_]+\.\*))*$/,
      "must be event types or families (`payment.*`) separated by commas",
    )
    .optional()
    .describe(
      "one type, a family such as `payment.*` (every type starting `payment.`), or a comma-separated list of them",
    ),
  order: z
    .enum(["asc", "desc"])
    .default("asc")
    .describe(
      "`asc` (default): oldest first, `after` the last sequence seen. `desc`: newest first; `after` 0 starts at the newest, otherwise the page holds events with a sequence below `after`",
    ),
  created_from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("events recorded (`created_at`) at or after this ISO 8601 date-time"),
  created_before: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("events recorded before this ISO 8601 date-time"),
});

export const eventRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/events",
    operationId: "listEvents",
    summary: "The tenant's event log, in sequence order",
    description:
      "Continue with `after` = `next_cursor`. `next_cursor` is the last sequence returned, or `after` itself on an empty page, so a reader can keep polling; a reader that pages this way never misses an event that commits later. `order=desc` reads newest first (`after` 0 starts at the newest; each page's `next_cursor` continues with older events); to follow what arrives after a newest-first page, poll `order=asc` with `after` = the newest sequence shown. `type` takes one type, a family (`payment.*`) or a comma-separated list of them; `created_from` and `created_before` (ISO 8601 date-times) keep the events recorded in that range; `resource_id` keeps the events of one resource (e.g. a payment's `pay_…` ID; with `type` it reads only those types' events). Billing events (`bill.finalized`, `bill.charging_stopped`, `bill.cap_exceeded`, `payment.*`, `charging_session.status_changed`) are listed only for keys that also hold `billing:read`.",
    tag: "Events",
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: tenantEventsQuery,
    status: 200,
    response: z.object({
      data: z.array(eventSchema),
      next_cursor: z.number().int(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db, principal }) => ({
      body: await listEvents({
        tenantId: params.tenant_id,
        after: query.after,
        limit: query.limit,
        types: query.type?.split(","),
        stationId: query.station_id,
        resourceId: query.resource_id,
        order: query.order,
        ...(query.created_from ? { createdFrom: new Date(query.created_from) } : {}),
        ...(query.created_before ? { createdBefore: new Date(query.created_before) } : {}),
        scopes: principal.scopes,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/events",
    operationId: "listWorkspaceEvents",
    summary: "The workspace's event log: its sandbox's, in sequence order",
    description:
      "The workspace's sandbox tenant's event log (the records of `GET /v1/tenants/{sandbox_tenant_id}/events`, plus `team_id`): the sandbox's charger events (`station.connected`, `station.booted`, `connector.status_changed`, `meter.sampled`…), `operation.completed`, `bill.*`, `payment.*` and `sandbox_session.status_changed`, exactly as a project's log carries them, and the team's own events: `api_key.rate_limit_changed` for any of the team's keys (data: `key_id`, `tenant_id` (null for a workspace key), `requests_per_minute`, `previous`, `changed_by` user ID). Filters `type` (one or a comma-separated list), `station_id`, `resource_id` as on the tenant log. A workspace key (scope `sandbox:read`) reads its team's log; a signed-in user reads their own workspace's, the oldest team they own (403 `no_grant` when they own none); a project key gets 403 `forbidden` and reads `/v1/tenants/{tenant_id}/events` instead. Paging as for the tenant log: continue with `after` = `next_cursor`, which is the last sequence returned, or `after` itself on an empty page; gap-free, so a reader paging this way never misses an event that commits later.",
    tag: "Events",
    auth: "caller",
    query: eventsQuery,
    status: 200,
    response: z.object({
      data: z.array(workspaceEventSchema),
      next_cursor: z.number().int(),
      has_more: z.boolean(),
    }),
    errors: ["no_grant", "forbidden"],
    handler: async ({ caller, query, db, rootDb }) => {
      if (caller.kind === "api_key" && caller.tenantId !== null)
        throw new DomainError(
          "forbidden",
          "A project key reads its project's events at /v1/tenants/{tenant_id}/events; workspace events need a workspace key.",
          { key_id: caller.keyId, tenant_id: caller.tenantId },
        );
      const access = await resolveWorkspaceAccess(db, caller);
      requireWorkspaceScopes(access, ["sandbox:read"], caller.kind === "api_key");
      return {
        body: await listWorkspaceEvents({
          tenantId: await ensureSandbox(rootDb, access.teamId),
          teamId: access.teamId,
          after: query.after,
          limit: query.limit,
          types: query.type?.split(","),
          stationId: query.station_id,
          resourceId: query.resource_id,
          scopes: access.projectScopes,
          db,
        }),
      };
    },
  }),
];
