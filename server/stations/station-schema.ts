import { z } from "zod";
import { CONNECTOR_STATUSES } from "../charger-reports/connector-status";
import { stationDisplaySchema } from "../displays/display-schema";
import { externalReference } from "../locations/location-schema";
import { resourceId } from "../lib/int4";
import { stationConfigurationSchema } from "./configuration/configuration-schema";

/** Spec section 2: letters, digits, `_`, `-`; starts with a letter or digit; at most 36. */
export const STATION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,35}$/;
/** `p<digits>-` names are reserved for the service's own project-scoped charger URLs. */
export const RESERVED_NAME_PATTERN = /^p[0-9]+-/i;
/** `sbx-` names are the sandboxes' own stations (server/sandbox/provision.ts). */
export const SANDBOX_NAME_PATTERN = /^sbx-/i;
export const MAX_CONNECTORS = 16;

export const stationName = z
  .string()
  .max(36, "must be at most 36 characters")
  .regex(
    STATION_NAME_PATTERN,
    "may contain only letters, digits, underscores and hyphens, and must start with a letter or digit",
  )
  .refine((name) => !RESERVED_NAME_PATTERN.test(name), "must not start with p<digits>- (reserved)")
  .refine(
    (name) => !SANDBOX_NAME_PATTERN.test(name),
    "must not start with sbx- (reserved for sandbox stations)",
  );

export const registerStationBody = z.strictObject({
  name: stationName,
  location_id: resourceId,
  connector_count: z.number().int().min(1).max(MAX_CONNECTORS),
  external_reference: externalReference.optional(),
  serial: z.string().trim().min(1).max(64).optional(),
});
export type RegisterStationInput = z.infer<typeof registerStationBody>;

export const moveStationBody = z.strictObject({
  location_id: resourceId,
});

export const listStationsQuery = z.object({
  location_id: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
  name: z.string().min(1).max(200).optional(),
  external_reference: externalReference.optional(),
  state: z
    .enum(["online", "offline", "charging", "faulted"])
    .optional()
    .describe(
      "`online` (a gateway holds its socket), `offline`, `charging` (a connector reports `Charging`), `faulted` (an open fault or a connector reporting `Faulted`): the overview's counts",
    ),
});

export const connectorSchema = z.object({
  id: z.number().int(),
  evse_number: z.number().int(),
  /** OCPP 1.6 connectorId */
  connector_number: z.number().int(),
  /** OCPP 2.x connectorId within the EVSE */
  evse_connector_number: z.number().int(),
  status: z.enum(CONNECTOR_STATUSES).nullable(),
  ocpp_status: z.string().nullable(),
  error_code: z.string().nullable(),
  status_updated_at: z.string().nullable(),
  reservation: z
    .object({
      id: z.number().int(),
      status: z.enum(["requested", "accepted"]),
      token: z.string(),
      expires_at: z.string(),
    })
    .nullable()
    .describe("the open reservation (GET …/reservations has them all)"),
});

export const faultSchema = z.object({
  fault_id: z.number().int(),
  connector_id: z.number().int().nullable(),
  evse_number: z.number().int().nullable(),
  error_code: z.string().nullable(),
  info: z.string().nullable(),
  vendor_id: z.string().nullable(),
  vendor_error_code: z.string().nullable(),
  ocpp_status: z.string().nullable(),
  opened_at: z.string(),
  cleared_at: z.string().nullable(),
});

export const stationSchema = z.object({
  id: z.number().int(),
  tenant_id: z.number().int(),
  location_id: z.number().int(),
  name: z.string(),
  external_reference: z.string().nullable(),
  serial: z.string().nullable(),
  connection_url: z.string(),
  online: z.boolean(),
  protocol: z.enum(["ocpp1.6", "ocpp2.0.1", "ocpp2.1"]).nullable(),
  last_seen: z.string().nullable(),
  boot: z
    .object({
      vendor: z.string().nullable(),
      model: z.string().nullable(),
      firmware_version: z.string().nullable(),
      booted_at: z.string().nullable(),
    })
    .nullable(),
  connectors: z.array(connectorSchema),
  display: stationDisplaySchema,
  open_faults: z.array(faultSchema),
  configuration: stationConfigurationSchema,
  local_list: z
    .object({
      version: z.number().int(),
      synced_at: z.string().nullable(),
      in_step: z.boolean(),
    })
    .describe("the local authorization list the charger confirmed last (GET …/local-list)"),
  created_at: z.string(),
  updated_at: z.string(),
  charger_id: z
    .string()
    .optional()
    .describe(
      "Preproduction only (absent in production): the station's project-scoped charger ID, `p<tenant_id>-<name>`. A charger may connect at `<connection_base_url>/<charger_id>` instead of `connection_url`. Absent too where platform staff turned the project's charger URLs off.",
    ),
  username: z
    .string()
    .optional()
    .describe(
      "Preproduction only (absent in production): the HTTP Basic username for the charger URL, equal to `charger_id`; the password is the station's own.",
    ),
  connection_base_url: z
    .string()
    .optional()
    .describe(
      "Preproduction only (absent in production): the project's charger URL base (`wss://…/ocpp`); the charger's URL is this plus `/<charger_id>`.",
    ),
});
export type StationResource = z.infer<typeof stationSchema>;
