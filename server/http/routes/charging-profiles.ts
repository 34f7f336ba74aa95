import { z } from "zod";
import {
  clearChargingProfiles,
  listChargingProfiles,
  readCompositeSchedule,
  reportChargingProfiles,
  setChargingProfile,
} from "../../charging-profiles/charging-profiles";
import {
  chargingProfileSchema,
  clearProfilesBody,
  compositeScheduleBody,
  reportProfilesBody,
  setProfileBody,
} from "../../charging-profiles/profile-schema";
import { chargingProfilesReportSchema } from "../../charging-profiles/reported-profiles";
import { stationParams } from "../params";
import { defineRoute } from "../route";
import { COMMAND_WAIT, STATION_COMMAND } from "./operations";

const base = "/v1/tenants/{tenant_id}/stations/{station_id}";

export const chargingProfileRoutes = [
  defineRoute({
    method: "GET",
    path: `${base}/charging-profiles`,
    operationId: "listChargingProfiles",
    summary: "The charging profiles the service set on a station",
    description:
      "Newest first, at most 200: by default those the service believes are or may be installed (`pending`, `installed`, `unknown`); `all=true` adds `rejected`, `replaced` and `cleared`. Each carries the charger's last answer (`charger_status`) and the operation that gave it. Profiles set by other systems are not among them: `charger_report` is the charger's own answer to the last POST …/charging-profiles/report (OCPP 2.x), every source's profiles.",
    tag: "Stations",
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    query: z.object({ all: z.enum(["true", "false"]).optional() }),
    status: 200,
    response: z.object({
      data: z.array(chargingProfileSchema),
      charger_report: chargingProfilesReportSchema,
    }),
    handler: async ({ params, query, db }) => ({
      body: await listChargingProfiles({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        all: query.all === "true",
      }),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/charging-profiles`,
    operationId: "setChargingProfile",
    summary: "Set a charging profile on the charger",
    description: `Answers 202 with the operation: OCPP 1.6 SetChargingProfile, OCPP 2.0.1 SetChargingProfile, from one shape (purposes in OCPP 1.6 names; \`ChargingStationMaxProfile\` is accepted). The profile is checked against what the protocol the station last spoke allows (422 \`validation_failed\`, \`details.fields\` naming each field in words: periods from 0 and rising, Recurring needs \`recurrency\` and \`schedule.start\`, ChargePointMaxProfile on the whole station, a TxProfile on a connector or EVSE (OCPP 2.x: with its running \`transaction_id\`), OCPP 1.6 limits in tenths). The profile is kept (GET …/charging-profiles) as \`pending\`, then \`installed\`, \`rejected\` or \`unknown\` with the charger's answer; an installed profile replaces the service's profiles of the same target, purpose and stack level. ${COMMAND_WAIT}`,
    params: stationParams,
    body: setProfileBody,
    handler: async ({ params, body, db, principal }) => ({
      body: await setChargingProfile({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/charging-profiles/clear`,
    operationId: "clearChargingProfiles",
    summary: "Clear charging profiles on the charger",
    description: `Answers 202 with the operation: OCPP 1.6 ClearChargingProfile (\`id\`, or \`connectorId\`/\`chargingProfilePurpose\`/\`stackLevel\`), OCPP 2.0.1 ClearChargingProfile (\`chargingProfileId\`, or \`chargingProfileCriteria\`). The charger's \`Accepted\` and \`Unknown\` (it held no such profile) both succeed, and the service's matching profiles become \`cleared\`. ${COMMAND_WAIT}`,
    params: stationParams,
    body: clearProfilesBody,
    handler: async ({ params, body, db, principal }) => ({
      body: await clearChargingProfiles({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/charging-profiles/report`,
    operationId: "reportChargingProfiles",
    summary: "Ask the charger which profiles it holds (OCPP 2.x)",
    description: `Answers 202 with the operation: OCPP 2.0.1 GetChargingProfiles (optionally for one \`evse_number\`, \`purpose\`, \`stack_level\`). \`Accepted\` and \`NoProfiles\` succeed; the charger's ReportChargingProfiles messages then fill the station's \`charger_report\` (GET …/charging-profiles), \`waiting\` until the last. OCPP 1.6 has no such call (422). ${COMMAND_WAIT}`,
    params: stationParams,
    body: reportProfilesBody,
    handler: async ({ params, body, db, principal }) => ({
      body: await reportChargingProfiles({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
  defineRoute({
    ...STATION_COMMAND,
    method: "POST",
    path: `${base}/composite-schedule`,
    operationId: "readCompositeSchedule",
    summary: "Read the charger's composite schedule",
    description: `Answers 202 with the operation: OCPP 1.6 GetCompositeSchedule (\`connectorId\`; 0 for the station), OCPP 2.0.1 GetCompositeSchedule (\`evseId\`; 0 for the grid connection) for \`duration\` seconds from now. \`result.schedule\` is the charger's schedule in the neutral shape (\`start\`, \`duration\`, \`unit\`, \`periods\`), \`result.response\` its own answer; a \`Rejected\` answer rejects the operation. ${COMMAND_WAIT}`,
    params: stationParams,
    body: compositeScheduleBody,
    handler: async ({ params, body, db, principal }) => ({
      body: await readCompositeSchedule({
        db,
        tenantId: params.tenant_id,
        stationId: params.station_id,
        input: body,
        principal,
      }),
    }),
  }),
];
