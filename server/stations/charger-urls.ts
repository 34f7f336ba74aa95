import { z } from "zod";
import type { UserCaller } from "../access/caller";
import { db as defaultDb, type Db, type DbTx } from "../db";
import { env } from "../env";
import { DomainError } from "../errors";

/**
 * Preproduction charger URLs (spec section 2, `charger_id`, `username`, `connection_base_url`;
 * README "Preproduction charger URLs"). With `SERVICE_ENV=preproduction` every station of a
 * project also answers on a project-scoped charger ID, `p<tenant_id>-<station name>` (the prefix
 * station names may not take), at `<connection_base_url>/<charger_id>` with HTTP Basic username
 * `<charger_id>` and the station's own password. One physical test charger can so be moved between
 * preproduction projects by its URL alone. Staff turn the feature off per tenant or give the
 * tenant a base URL of its own (`/v1/admin/tenants/{tenant_id}/charger-urls`). Anywhere else
 * (production, development, test) the fields are absent and the admin routes answer 409
 * `project_urls_disabled`.
 */

/** `p<tenant_id>-<name>`: at most 1 + 10 + 1 + 36 = 48 characters, OCPP's identity limit. */
export const CHARGER_ID_PATTERN = /^p([1-9][0-9]{0,9})-([A-Za-z0-9][A-Za-z0-9_-]{0,35})$/;

export type ChargerUrlState = {
  tenantId: number;
  enabled: boolean;
  /** the base in use: the override, else the default */
  connectionBaseUrl: string;
  /** staff's override, null when the default is used */
  baseUrlOverride: string | null;
  note: string | null;
  updatedAt: Date | null;
  updatedBy: number | null;
};

/** Whether this deployment offers preproduction charger URLs at all. */
export const chargerUrlsOffered = () => env().serviceEnv === "preproduction";

export const defaultConnectionBaseUrl = () => `${env().ocppPublicUrl}/ocpp`;

export const chargerId = (tenantId: number, name: string) => `p${tenantId}-${name}`;

/** The tenant and station name a charger ID names, or null when the identity is not one. */
export function parseChargerId(identity: string): { tenantId: number; name: string } | null {
  const match = CHARGER_ID_PATTERN.exec(identity);
  if (!match) return null;
  const tenantId = Number(match[1]);
  if (tenantId > 2147483647) return null;
  return { tenantId, name: match[2]! };
}

/**
 * The tenant's state, or null where the feature is not offered (no query then: production reads
 * cost nothing more). A tenant without a row has the feature on with the default base URL.
 */
export async function loadChargerUrls(
  db: DbTx | Db,
  tenantId: number,
): Promise<ChargerUrlState | null> {
  if (!chargerUrlsOffered()) return null;
  const row = await db.tenantChargerUrls.findUnique({ where: { tenantId } });
  return {
    tenantId,
    enabled: row?.enabled ?? true,
    connectionBaseUrl: row?.connectionBaseUrl ?? defaultConnectionBaseUrl(),
    baseUrlOverride: row?.connectionBaseUrl ?? null,
    note: row?.note ?? null,
    updatedAt: row?.updatedAt ?? null,
    updatedBy: row?.updatedBy ?? null,
  };
}

/** The three station fields, or nothing where the feature is off for the station's tenant. */
export function stationChargerUrlFields(
  state: ChargerUrlState | null,
  tenantId: number,
  name: string,
): { charger_id: string; username: string; connection_base_url: string } | Record<string, never> {
  if (!state || !state.enabled || state.tenantId !== tenantId) return {};
  const id = chargerId(tenantId, name);
  return { charger_id: id, username: id, connection_base_url: state.connectionBaseUrl };
}

export const chargerUrlsSchema = z.object({
  tenant_id: z.number().int(),
  enabled: z
    .boolean()
    .describe("false: staff turned the feature off; the tenant's stations show no charger_id"),
  connection_base_url: z
    .string()
    .describe("the base in use; chargers connect to `<base>/<charger_id>`"),
  base_url_override: z
    .string()
    .nullable()
    .describe("staff's override of the base, null for the service's default"),
  default_connection_base_url: z.string(),
  charger_id_format: z.literal("p<tenant_id>-<station name>"),
  note: z.string().nullable(),
  updated_at: z.string().nullable(),
  updated_by: z
    .number()
    .int()
    .nullable()
    .describe("user ID of the platform admin, null if never set"),
});

const baseUrl = z
  .string()
  .max(200, "must be at most 200 characters")
  .refine((value) => {
    try {
      const u = new URL(value);
      return (
        (u.protocol === "wss:" || u.protocol === "ws:") &&
        /^\/ocpp\/?$/.test(u.pathname) &&
        !u.search &&
        !u.hash &&
        !u.username &&
        !u.password
      );
    } catch {
      return false;
    }
  }, "must be a ws:// or wss:// URL whose path is /ocpp (e.g. wss://acme.preprod.example/ocpp)")
  .transform((value) => value.replace(/\/+$/, ""));

export const chargerUrlsBody = z
  .object({
    enabled: z.boolean().optional(),
    connection_base_url: baseUrl
      .nullable()
      .optional()
      .describe("a base of the tenant's own (its host must reach the gateways); null: the default"),
    note: z.string().trim().max(500, "must be at most 500 characters").nullable().optional(),
  })
  .strict();

export type ChargerUrlsInput = z.infer<typeof chargerUrlsBody>;

function presentChargerUrls(state: ChargerUrlState): z.input<typeof chargerUrlsSchema> {
  return {
    tenant_id: state.tenantId,
    enabled: state.enabled,
    connection_base_url: state.connectionBaseUrl,
    base_url_override: state.baseUrlOverride,
    default_connection_base_url: defaultConnectionBaseUrl(),
    charger_id_format: "p<tenant_id>-<station name>",
    note: state.note,
    updated_at: state.updatedAt?.toISOString() ?? null,
    updated_by: state.updatedBy,
  };
}

function requireOffered() {
  if (!chargerUrlsOffered())
    throw new DomainError(
      "project_urls_disabled",
      "Preproduction charger URLs are offered in preproduction only (SERVICE_ENV=preproduction).",
      {},
    );
}

/** Staff who may read: both platform roles. Write: platform-admin only (spec section 5). */
function requireStaff(caller: UserCaller, write: boolean) {
  const allowed = write ? ["platform-admin"] : ["platform-admin", "platform-support"];
  if (!allowed.includes(caller.platformRole ?? ""))
    throw new DomainError(
      "forbidden",
      write
        ? "Only a platform admin can change a tenant's charger URLs."
        : "Only platform staff can read a tenant's charger URLs.",
      { required_roles: allowed },
    );
}

async function requireTenant(db: Db, tenantId: number) {
  const tenant = await db.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) throw new DomainError("not_found", "No such tenant.", { resource: "tenant" });
}

export async function readChargerUrls(caller: UserCaller, tenantId: number, db: Db = defaultDb()) {
  requireStaff(caller, false);
  requireOffered();
  await requireTenant(db, tenantId);
  return presentChargerUrls((await loadChargerUrls(db, tenantId))!);
}

export const projectChargerUrlsSchema = z.object({
  tenant_id: z.number().int(),
  connection_base_url: z
    .string()
    .describe("chargers connect to `<connection_base_url>/<charger_id>`"),
  charger_id_format: z.literal("p<tenant_id>-<station name>"),
  username: z
    .literal("the charger_id")
    .describe("HTTP Basic's user; the password is the station's"),
});

/**
 * The project's own view: its base URL and how charger IDs are made, or 409
 * `project_urls_disabled` where the feature is off (not preproduction, or staff turned it off).
 */
export async function readProjectChargerUrls(
  tenantId: number,
  db: Db = defaultDb(),
): Promise<z.input<typeof projectChargerUrlsSchema>> {
  requireOffered();
  const state = (await loadChargerUrls(db, tenantId))!;
  if (!state.enabled)
    throw new DomainError(
      "project_urls_disabled",
      "Platform staff turned this project's preproduction charger URLs off; its chargers use each station's connection_url.",
      {},
    );
  return {
    tenant_id: tenantId,
    connection_base_url: state.connectionBaseUrl,
    charger_id_format: "p<tenant_id>-<station name>",
    username: "the charger_id",
  };
}

/** Fields left out keep their value; `connection_base_url: null` returns to the default. */
export async function setChargerUrls(
  caller: UserCaller,
  tenantId: number,
  input: ChargerUrlsInput,
  db: Db = defaultDb(),
) {
  requireStaff(caller, true);
  requireOffered();
  await requireTenant(db, tenantId);
  const data = {
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...(input.connection_base_url !== undefined
      ? { connectionBaseUrl: input.connection_base_url }
      : {}),
    ...(input.note !== undefined ? { note: input.note || null } : {}),
    updatedBy: caller.userId,
  };
  await db.tenantChargerUrls.upsert({
    where: { tenantId },
    create: { tenantId, ...data },
    update: data,
  });
  return presentChargerUrls((await loadChargerUrls(db, tenantId))!);
}
