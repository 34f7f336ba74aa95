import { z } from "zod";
import { setTokenBlocked, tokenSchema } from "../../charging/block-token";
import { idParam } from "../params";
import { defineRoute } from "../route";

/** A charging token as OCPP carries it: 1.6 idTag (20), 2.x idToken (36), printable ASCII. */
const tokenParams = z.object({
  tenant_id: idParam,
  token: z
    .string()
    .min(1)
    .max(36)
    .regex(/^[\x20-\x7e]+$/, "must be printable ASCII"),
});

const blockDescription =
  "Only tokens the service issued (start commands, bills) can be blocked; any other is 404. While blocked, a charger presenting the token is answered `Blocked` (OCPP 1.6 `idTagInfo`, 2.x `idTokenInfo`) whatever the project's authorization mode; an issued token past its expiry is answered `Expired` under `known_tokens`. Stations that keep a local authorization list (their charger confirmed one once) get the change as a differential `SendLocalList` about a second later; an offline one when it reconnects.";

export const tokenRoutes = [
  defineRoute({
    method: "PUT",
    path: "/v1/tenants/{tenant_id}/tokens/{token}/block",
    operationId: "blockToken",
    summary: "Block a charging token the service issued",
    description: blockDescription,
    tag: "Commands",
    auth: "tenant",
    scopes: ["stations:control"],
    params: tokenParams,
    idempotency: "optional",
    status: 200,
    response: tokenSchema,
    handler: async ({ params, db }) => ({
      body: await setTokenBlocked({
        db,
        tenantId: params.tenant_id,
        token: params.token,
        blocked: true,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/tokens/{token}/block",
    operationId: "unblockToken",
    summary: "Unblock a charging token",
    description: blockDescription,
    tag: "Commands",
    auth: "tenant",
    scopes: ["stations:control"],
    params: tokenParams,
    idempotency: "optional",
    status: 200,
    response: tokenSchema,
    handler: async ({ params, db }) => ({
      body: await setTokenBlocked({
        db,
        tenantId: params.tenant_id,
        token: params.token,
        blocked: false,
      }),
    }),
  }),
];
