import { z } from "zod";
import {
  getLocalListState,
  localListStateSchema,
  readLocalListVersion,
  sendLocalList,
} from "../../local-lists/local-list";
import { createReservationBody, reservationSchema } from "../../reservations/reservation-schema";
import {
  cancelReservation,
  createReservation,
  listReservations,
} from "../../reservations/reservations";
import { idParam, stationParams } from "../params";
import { defineRoute } from "../route";
import { COMMAND_WAIT, STATION_COMMAND } from "./operations";

const base = "/v1/tenants/{tenant_id}/stations/{station_id}";
const reservationParams = stationParams.extend({ reservation_id: idParam });

export const reservationRoutes = [
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/reservations`,
    operationId: "createReservation",
    summary: "Reserve a connector for a token",
    description: `Answers 202 with the operation (scope \`station.reservation\`): OCPP 1.6 ReserveNow for the connector, OCPP 2.x ReserveNow for its EVSE (\`connector_type\` passed through). \`request.reservation_id\` names the reservation (GET …/reservations), written \`requested\` and then \`accepted\`, or the charger's refusal (\`rejected\`, \`faulted\`, \`occupied\`, \`unavailable\`); later \`used\` (a transaction started on it), \`expired\` (at \`expires_at\`) or \`canceled\`. Each change is a \`reservation.status_changed\` event. One open reservation per connector (409 \`connector_reserved\`). The reserved time is priced by the bill's tariff's reservation elements when a transaction uses it. ${COMMAND_WAIT}`,
    params: stationParams,
    body: createReservationBody,
    errors: ["connector_not_found", "connector_reserved"],
    handler: async ({ params, body, db, principal }) => ({
      body: await createReservation({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/reservations`,
    operationId: "listReservations",
    summary: "The station's reservations",
    description: "The station's latest 100 reservations, newest first, in every state.",
    tag: "Stations",
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    status: 200,
    response: z.object({ data: z.array(reservationSchema) }),
    handler: async ({ params, db }) => ({
      body: await listReservations(db, params.tenant_id, params.station_id),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/reservations/{reservation_id}/cancel`,
    operationId: "cancelReservation",
    summary: "Cancel a reservation",
    description: `No body. Answers 202 with the operation (scope \`station.reservation_cancel\`): CancelReservation. The reservation is \`canceled\` when the charger accepts; a \`Rejected\` answer leaves it as it was. A reservation no longer \`requested\` or \`accepted\` is 409 \`reservation_closed\`. ${COMMAND_WAIT}`,
    params: reservationParams,
    errors: ["reservation_closed"],
    handler: async ({ params, db, principal }) => ({
      body: await cancelReservation({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        reservationId: params.reservation_id,
        principal,
      }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/local-list`,
    operationId: "getLocalList",
    summary: "The station's local authorization list",
    description:
      "The version the charger confirmed last, when, whether the service knows the list it holds (`in_step`; when false the next send is full) and its tokens, and a send still in flight.",
    tag: "Stations",
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    status: 200,
    response: localListStateSchema,
    handler: async ({ params, db }) => ({
      body: await getLocalListState(db, params.tenant_id, params.station_id),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/local-list`,
    operationId: "sendLocalList",
    summary: "Send the next local authorization list version",
    description: `Answers 202 with the operation (scope \`station.local_list_send\`): SendLocalList (OCPP 1.6 and 2.x) of the tokens the service issued that are still valid (\`Accepted\`, with their expiry) and those the operator blocked (\`Blocked\`); tokens over 20 characters are left off. \`update_type\`: \`differential\` (default: only what changed since the version the charger confirmed; full when the service does not know what it holds) or \`full\`. Versions go in order, each the confirmed one plus one: while a send is in flight another is 409 \`local_list_busy\`. A differential answered \`Failed\` or \`VersionMismatch\` is followed at once by a full update (its own operation, \`request.fallback_for\` naming the refused one). Each accepted version is a \`station.local_list_synced\` event. ${COMMAND_WAIT}`,
    params: stationParams,
    body: z.strictObject({
      update_type: z.enum(["full", "differential"]).default("differential"),
    }),
    errors: ["local_list_busy"],
    handler: async ({ params, body, db, principal }) => ({
      body: await sendLocalList({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        updateType: body.update_type,
        principal,
      }),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/local-list/version`,
    operationId: "readLocalListVersion",
    summary: "Ask the charger for its local list version",
    description: `No body. Answers 202 with the operation (scope \`station.local_list_version\`): GetLocalListVersion; \`result.version\` is the charger's. A version other than the one the service confirmed last makes the list not \`in_step\` (the next send is full). ${COMMAND_WAIT}`,
    params: stationParams,
    handler: async ({ params, db, principal }) => ({
      body: await readLocalListVersion({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        principal,
      }),
    }),
  }),
];
