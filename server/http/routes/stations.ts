import { z } from "zod";
import { operationSchema } from "../../operations/operation-schema";
import { deleteStation } from "../../stations/delete-station";
import { getStation } from "../../stations/get-station";
import { listStations } from "../../stations/list-stations";
import { moveStation } from "../../stations/move-station";
import { registerStation } from "../../stations/register-station";
import {
  MAX_BULK_STATIONS,
  hashStationPasswords,
  registerStations,
  registerStationsBody,
  registerStationsBodyDoc,
  registerStationsResponse,
} from "../../stations/register-stations";
import {
  listStationsQuery,
  moveStationBody,
  registerStationBody,
  stationSchema,
} from "../../stations/station-schema";
import { pageSchema, paginationQuery } from "../../lib/pagination";
import { stationParams, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Stations";

export const stationRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/stations",
    operationId: "listStations",
    summary: "List stations",
    description:
      "`name` matches a case-insensitive part of the name; `external_reference` and `location_id` match exactly.",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: paginationQuery.extend(listStationsQuery.shape),
    status: 200,
    response: pageSchema(stationSchema),
    handler: async ({ params, query, db }) => ({
      body: await listStations({
        tenantId: params.tenant_id,
        page: query,
        name: query.name,
        externalReference: query.external_reference,
        state: query.state,
        locationId: query.location_id,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/stations",
    operationId: "registerStation",
    summary: "Register a station",
    description:
      "Creates the station with one EVSE per connector, each connector with its own resource ID. Does not connect hardware. While the team's billing is suspended (team billing on): 402 `billing_suspended` (a new charger is a new cost; existing ones keep working).",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: tenantParams,
    body: registerStationBody,
    idempotency: "required",
    status: 201,
    response: stationSchema,
    errors: [
      "station_name_taken",
      "external_reference_taken",
      "location_not_found",
      "billing_suspended",
    ],
    handler: async ({ params, body, db }) => ({
      body: await registerStation({ tenantId: params.tenant_id, input: body, db }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/stations/bulk",
    operationId: "registerStations",
    summary: "Register a fleet of stations",
    description: `Registers up to ${MAX_BULK_STATIONS} stations in one request, each as \`POST /stations\` would, with an optional initial OCPP connection \`password\` (stored as the credentials route stores one for an offline station: scrypt, with its keyed verifier). Each item stands alone: the valid ones are registered and each refused one is answered in its place with the status and \`error\` (\`{ code, message, details }\`) the single registration would give it (422 \`validation_failed\` naming \`stations.<index>.<field>\`, 422 \`location_not_found\`, 409 \`station_name_taken\`, also for a name repeated in the request, 409 \`external_reference_taken\`). The answer is 200 with one result per item, in order; the Idempotency-Key replays it exactly, refused items included (send them again, fixed, under a new key). Refused as a whole, nothing registered: a body that is not 1 to ${MAX_BULK_STATIONS} items (422), and 402 \`billing_suspended\`.`,
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: tenantParams,
    body: registerStationsBody,
    bodyDoc: registerStationsBodyDoc,
    idempotency: "required",
    status: 200,
    response: registerStationsResponse,
    errors: ["billing_suspended"],
    prepare: ({ body }) => hashStationPasswords(body.stations),
    handler: async ({ params, body, db, prepared }) => ({
      body: await registerStations({
        tenantId: params.tenant_id,
        items: body.stations,
        db,
        ...(prepared && { hashes: prepared }),
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}",
    operationId: "getStation",
    summary: "Read a station",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    status: 200,
    response: stationSchema,
    handler: async ({ params, db }) => ({
      body: await getStation({ tenantId: params.tenant_id, stationId: params.station_id, db }),
    }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}",
    operationId: "moveStation",
    summary: "Move a station to another location of the same tenant",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: stationParams,
    body: moveStationBody,
    idempotency: "required",
    status: 202,
    response: operationSchema,
    errors: ["location_not_found"],
    handler: async ({ params, body, db, principal }) => ({
      body: await moveStation({
        tenantId: params.tenant_id,
        stationId: params.station_id,
        locationId: body.location_id,
        apiKeyId: principal.actorId,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}",
    operationId: "deleteStation",
    summary: "Delete a station",
    description:
      "Removes the station, its EVSEs and connectors. Refused when it has an active transaction (409 `transaction_active`) or any charging history: transactions or bills (409 `station_has_history`). A sandbox station (its virtual charger is the service's): 409 `sandbox_station_managed`.",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: stationParams,
    idempotency: "required",
    status: 200,
    response: z.object({ id: z.number().int(), deleted: z.literal(true) }),
    errors: ["station_has_history", "transaction_active", "sandbox_station_managed"],
    handler: async ({ params, db }) => ({
      body: await deleteStation({ tenantId: params.tenant_id, stationId: params.station_id, db }),
    }),
  }),
];
