import { z } from "zod";
import { operationSchema } from "../../operations/operation-schema";
import { putPowerLimitBody, powerLimitSchema } from "../../site-limits/limit-schema";
import { getPowerLimitState } from "../../site-limits/power-limit-state";
import { deletePowerLimit, putPowerLimit } from "../../site-limits/site-limits";
import { locationParams } from "../params";
import { defineRoute } from "../route";

const path = "/v1/tenants/{tenant_id}/locations/{location_id}/power-limit";

/** How the limit is divided, stated once for PUT and GET (README.md, server/site-limits/README.md). */
const RULE =
  "The limit is divided among the sessions charging right now on the connectors it covers: each first gets its connector's minimum (when the minimums alone exceed the limit, the sessions that started earliest keep theirs and the rest get 0, paused), then what remains is split equally, capped at each connector's maximum and at its measured draw plus a headroom (the larger of 1 kW and a quarter of the draw); what a capped session leaves goes to the others. Each share is sent as a `TxProfile` in A per phase (A = W / (voltage × phases), rounded down to 0.1 A) with `numberPhases`, recomputed within a second when a session starts or stops, its draw changes by half the headroom or more, the limit changes or a charger answers; a `location.power_allocation_changed` event carries each change. **A charger that rejects its profile** is counted at its connector's maximum for the rest of its transaction, and that much is held back from the others (`held_back_w`); one that has not confirmed a profile yet counts at its maximum too, and one whose answer is unknown at the larger of its old and new share. Decreases are sent first and an increase only once the sum of what is counted, with it, stays within the limit, so the limits the chargers hold never sum above `max_power_w`. **A tolerance band** keeps the profiles sent per change few: a session keeps the share it holds while that is within the band of its fair share (the split above; the band is the larger of `tolerance_band.min_current_a` per phase and `tolerance_band.percent` of the fair share, by default 1 A and 10 %), and one outside it is sent its fair share. Room for a start, a lowered limit or a rising draw is taken from as few sessions as it takes, those furthest above their fair share first, each down to its fair share less the band; what a stop frees is handed out only to the sessions it leaves more than the band below their fair share, so up to a band's worth per session may stay unused. A new session is sent its fair share at once when that much is free, otherwise what is free and its share once the others' decreases are answered.";

export const siteLimitRoutes = [
  defineRoute({
    method: "PUT",
    path,
    operationId: "putPowerLimit",
    summary: "Set a location's power limit",
    description: `Sets or replaces the location's limit (a group of its stations with \`station_ids\`) and answers it as GET does; the shares follow within a second. 422 \`validation_failed\` names each field: a limit above 0, a minimum not above its maximum, stations of this location, connectors of the covered stations, phases 1 or 3. ${RULE}`,
    tag: "Locations",
    auth: "tenant",
    scopes: ["stations:control"],
    params: locationParams,
    body: putPowerLimitBody,
    idempotency: "required",
    status: 200,
    response: powerLimitSchema,
    handler: async ({ params, body, db }) => ({
      body: await putPowerLimit({
        db,
        tenantId: params.tenant_id,
        locationId: params.location_id,
        input: body,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path,
    operationId: "getPowerLimit",
    summary: "A location's power limit and its shares",
    description: `The limit, the sessions' shares with each charger's answer (\`profile_state\`), the latest measured draw (\`live_power_w\`, summed) and what is counted against the limit (\`allocated_w\`: the shares plus what is held back). 404 \`not_found\` when the location has no limit. ${RULE}`,
    tag: "Locations",
    auth: "tenant",
    scopes: ["stations:read"],
    params: locationParams,
    status: 200,
    response: powerLimitSchema,
    handler: async ({ params, db }) => ({
      body: await getPowerLimitState(params.tenant_id, params.location_id, db),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path,
    operationId: "deletePowerLimit",
    summary: "Remove a location's power limit",
    description:
      "Clears each site-limit TxProfile sent for a running session from its charger (a `station.charging_profile_clear` operation by its OCPP ID, answered here; an offline station's is `rejected` with `station_offline`) and removes the limit and its shares. 404 `not_found` when the location has no limit.",
    tag: "Locations",
    auth: "tenant",
    scopes: ["stations:control"],
    params: locationParams,
    idempotency: "required",
    status: 202,
    response: z.object({ location_id: z.number().int(), operations: z.array(operationSchema) }),
    handler: async ({ params, db }) => ({
      body: await deletePowerLimit({
        db,
        tenantId: params.tenant_id,
        locationId: params.location_id,
      }),
    }),
  }),
];
