import { z } from "zod";
import type { DbTx } from "../db";
import { DomainError } from "../errors";
import { ERROR_STATUS, errorBody, errorBodySchema } from "../http/errors";
import { parseOrThrow, type FieldIssue } from "../http/validation";
import { externalReferenceTaken } from "../locations/create-location";
import { configuredVerifierKey, stationVerifier } from "../lib/password-verifier";
import { passwordPool } from "../lib/password-pool";
import { readyDomainBase } from "../ocpp-domains/ready-domain";
import { requireTenantNotSuspended } from "../team-billing/standing";
import { loadChargerUrls } from "./charger-urls";
import { presentStation, stationInclude } from "./present-station";
import { locationNotFound, stationNameTaken } from "./register-station";
import { credentialsBody } from "./set-station-credentials";
import { registerStationBody, stationSchema } from "./station-schema";

/**
 * Bulk fleet onboarding: `POST /v1/tenants/{tenant_id}/stations/bulk` registers up to
 * `MAX_BULK_STATIONS` stations in one request, each with an optional initial connection password.
 *
 * Semantics (README.md, "Registering a fleet"):
 * - the request as a whole is refused (nothing registered) only for what concerns all of it: a
 *   body that is not `{ stations: [1..100 items] }`, the scope, the Idempotency-Key, a suspended
 *   team billing (402);
 * - otherwise each item stands alone: the valid ones are registered, and each refused one is
 *   answered in its place with the status and the `{ code, message, details }` the single
 *   `POST /stations` route would give it (422 `validation_failed` with fields named
 *   `stations.<index>.<field>`, 422 `location_not_found`, 409 `station_name_taken`, also for a
 *   name repeated within the request, 409 `external_reference_taken`);
 * - the answer is 200 with one result per item, in order, and the counts; an Idempotency-Key
 *   replays it exactly, refused items included: send those again, fixed, with a new key.
 *
 * Passwords stay scrypt with the same parameters (server/lib/passwords.ts); the speed comes from
 * hashing them all at once on a worker pool of one thread per core (server/lib/password-pool.ts),
 * before the request's transaction opens (`hashStationPasswords`, the route's `prepare`: no
 * database connection waits on scrypt, up to seconds for 100 passwords), and from a constant
 * number of database round trips per request instead of per station: one
 * check, one statement that inserts the stations with their EVSEs and connectors, one that stores
 * the keyed verifiers, one read of what was made. A password given here is the station's initial
 * one: it is stored with its keyed verifier, as the credentials route stores one for an offline
 * station, and it is not a password change (the 5 per hour limit counts changes).
 */
export const MAX_BULK_STATIONS = 100;

/**
 * Passwords the pool may have waiting, per thread, before a bulk request is refused 503
 * `service_unavailable` (Retry-After) rather than queued: about 14 s of scrypt (35 ms each on the
 * machine bench/README.md names), so an accepted request waits seconds for its passwords, not
 * minutes (and a hashing that must run inside the transaction ends well inside its 30 s).
 */
export const MAX_HASH_BACKLOG_PER_THREAD = 400;

export const bulkStationItem = z.strictObject({
  ...registerStationBody.shape,
  password: credentialsBody.shape.password
    .optional()
    .describe("the station's OCPP connection password (security profile 1/2), 16 to 40 characters"),
});
export type BulkStationItem = z.infer<typeof bulkStationItem>;

/** What the route parses: the items are read one by one, so one bad item refuses only itself. */
export const registerStationsBody = z.strictObject({
  stations: z
    .array(z.unknown())
    .min(1, "must hold at least 1 station")
    .max(MAX_BULK_STATIONS, `must hold at most ${MAX_BULK_STATIONS} stations`),
});

/** What the OpenAPI document shows. */
export const registerStationsBodyDoc = z.strictObject({
  stations: z.array(bulkStationItem).min(1).max(MAX_BULK_STATIONS),
});

const itemError = errorBodySchema.shape.error;

export const bulkStationResultSchema = z.union([
  z.strictObject({
    index: z.number().int(),
    status: z.literal(201),
    station: stationSchema,
  }),
  z.strictObject({
    index: z.number().int(),
    status: z.number().int().describe("the status the single registration would have answered"),
    error: itemError,
  }),
]);

export const registerStationsResponse = z.object({
  data: z.array(bulkStationResultSchema),
  created: z.number().int(),
  failed: z.number().int(),
});

type Result = z.input<typeof bulkStationResultSchema>;

const refused = (index: number, error: DomainError): Result => ({
  index,
  status: ERROR_STATUS[error.code],
  error: errorBody(error).error,
});

/** An item's field errors named from the request's top: `stations.3.name`. */
function parseItem(index: number, raw: unknown): BulkStationItem | DomainError {
  try {
    return parseOrThrow(bulkStationItem, raw, "body");
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const fields = ((error.details.fields ?? []) as FieldIssue[]).map((issue) => ({
      ...issue,
      field: issue.field === "body" ? `stations.${index}` : `stations.${index}.${issue.field}`,
    }));
    const first = fields[0];
    return new DomainError(
      "validation_failed",
      first ? `Invalid body: ${first.field} ${first.message}` : "Invalid body.",
      { fields },
    );
  }
}

type Pending = { index: number; input: BulkStationItem; nameKey: string };

/** The scrypt hashes of a request's passwords, by item index. */
export type StationPasswordHashes = ReadonlyMap<number, string>;

/**
 * Hashes passwords all at once on the pool's threads (not this one, not libuv's); refuses 503
 * while the pool has too many waiting, before any is hashed.
 */
async function hashPasswords(
  items: readonly { index: number; password: string }[],
): Promise<Map<number, string>> {
  if (items.length === 0) return new Map();
  const pool = passwordPool();
  if (pool.backlog() >= pool.size * MAX_HASH_BACKLOG_PER_THREAD)
    throw new DomainError(
      "service_unavailable",
      "Too many station passwords are being hashed right now; retry shortly (the same Idempotency-Key makes the retry safe).",
      { passwords_waiting: pool.backlog() },
      { retryAfterSeconds: 5 },
    );
  const hashes = await pool.hashAll(items.map((item) => item.password));
  return new Map(items.map((item, i) => [item.index, hashes[i]!]));
}

/**
 * The passwords of a bulk request's well-formed items, hashed: the route's `prepare`, run before
 * its idempotency transaction opens. An item refused later (its name taken…) was hashed for
 * nothing, which costs a thread of the pool, not a database connection.
 */
export function hashStationPasswords(items: readonly unknown[]): Promise<StationPasswordHashes> {
  const withPassword: { index: number; password: string }[] = [];
  items.forEach((raw, index) => {
    const parsed = parseItem(index, raw);
    if (!(parsed instanceof DomainError) && parsed.password !== undefined)
      withPassword.push({ index, password: parsed.password });
  });
  return hashPasswords(withPassword);
}

export async function registerStations({
  db,
  tenantId,
  items,
  hashes = new Map(),
}: {
  db: DbTx;
  tenantId: number;
  items: readonly unknown[];
  /** the passwords hashed before the transaction (`hashStationPasswords`); others are hashed here */
  hashes?: StationPasswordHashes;
}) {
  await requireTenantNotSuspended(db, tenantId);
  const results = new Array<Result | undefined>(items.length);
  let pending: Pending[] = [];
  const names = new Set<string>();
  const references = new Set<string>();
  items.forEach((raw, index) => {
    const parsed = parseItem(index, raw);
    if (parsed instanceof DomainError) return (results[index] = refused(index, parsed));
    const nameKey = parsed.name.toLowerCase();
    // within the request, the first of a name (or reference) is the one registered
    if (names.has(nameKey)) return (results[index] = refused(index, stationNameTaken(parsed.name)));
    const reference = parsed.external_reference;
    if (reference !== undefined && references.has(reference))
      return (results[index] = refused(index, externalReferenceTaken(reference)));
    names.add(nameKey);
    if (reference !== undefined) references.add(reference);
    pending.push({ index, input: parsed, nameKey });
  });

  // One round trip: the tenant's locations named, and the names and references already taken.
  if (pending.length > 0) {
    const [taken] = await db.$queryRaw<
      { locations: number[]; names: string[]; references: string[] }[]
    >`
      SELECT
        (SELECT coalesce(array_agg(id), '{}') FROM locations
          WHERE tenant_id = ${tenantId}
            AND id = ANY(${[...new Set(pending.map((p) => p.input.location_id))]}::int[])) AS locations,
        (SELECT coalesce(array_agg(name_key), '{}') FROM stations
          WHERE name_key = ANY(${pending.map((p) => p.nameKey)}::text[])) AS names,
        (SELECT coalesce(array_agg(external_reference), '{}') FROM stations
          WHERE tenant_id = ${tenantId}
            AND external_reference = ANY(${[...references]}::text[])) AS references`;
    const locations = new Set(taken!.locations);
    const takenNames = new Set(taken!.names);
    const takenReferences = new Set(taken!.references);
    pending = pending.filter(({ index, input, nameKey }) => {
      const error = !locations.has(input.location_id)
        ? locationNotFound(input.location_id)
        : takenNames.has(nameKey)
          ? stationNameTaken(input.name)
          : input.external_reference !== undefined && takenReferences.has(input.external_reference)
            ? externalReferenceTaken(input.external_reference)
            : null;
      if (error) results[index] = refused(index, error);
      return error === null;
    });
  }

  // Hashed before the transaction as a rule; here only when that step was skipped (its key had a
  // record then, which went before this transaction claimed it).
  const unhashed = pending.filter((p) => p.input.password !== undefined && !hashes.has(p.index));
  const hashOf = new Map([
    ...hashes,
    ...(await hashPasswords(
      unhashed.map((p) => ({ index: p.index, password: p.input.password! })),
    )),
  ]);

  // One statement: the stations, one EVSE per connector, each EVSE's connector. A name or
  // reference another request registered meanwhile is skipped here (ON CONFLICT) and told below.
  const inserted =
    pending.length === 0
      ? []
      : await db.$queryRaw<{ id: number; name_key: string }[]>`
      WITH input AS (
        SELECT * FROM unnest(
          ${pending.map((p) => p.index)}::int[],
          ${pending.map((p) => p.input.name)}::text[],
          ${pending.map((p) => p.nameKey)}::text[],
          ${pending.map((p) => p.input.location_id)}::int[],
          ${pending.map((p) => p.input.external_reference ?? null)}::text[],
          ${pending.map((p) => p.input.serial ?? null)}::text[],
          ${pending.map((p) => hashOf.get(p.index) ?? null)}::text[],
          ${pending.map((p) => p.input.connector_count)}::int[]
        ) AS i(idx, name, name_key, location_id, external_reference, serial, password_hash, connector_count)
      ),
      made AS (
        INSERT INTO stations (tenant_id, location_id, name, name_key, external_reference, serial,
                              password_hash, updated_at)
        SELECT ${tenantId}, location_id, name, name_key, external_reference, serial, password_hash,
               now()
          FROM input ORDER BY idx
        ON CONFLICT DO NOTHING
        RETURNING id, name_key
      ),
      evse AS (
        INSERT INTO evses (tenant_id, station_id, evse_number)
        SELECT ${tenantId}, made.id, n
          FROM made JOIN input USING (name_key)
          CROSS JOIN LATERAL generate_series(1, input.connector_count) AS n
        RETURNING id, station_id, evse_number
      ),
      -- (a data-modifying WITH runs to completion whether or not the query reads it)
      connector AS (
        INSERT INTO connectors (tenant_id, station_id, evse_id, connector_number,
                                evse_connector_number)
        SELECT ${tenantId}, station_id, id, evse_number, 1 FROM evse
        RETURNING id
      )
      SELECT id, name_key FROM made`;
  const idOf = new Map(inserted.map((row) => [row.name_key, row.id]));

  const lost = pending.filter((p) => !idOf.has(p.nameKey));
  if (lost.length > 0) {
    const now = await db.station.findMany({
      where: { nameKey: { in: lost.map((p) => p.nameKey) } },
      select: { nameKey: true },
    });
    const named = new Set(now.map((row) => row.nameKey));
    for (const p of lost)
      results[p.index] = refused(
        p.index,
        named.has(p.nameKey)
          ? stationNameTaken(p.input.name)
          : externalReferenceTaken(p.input.external_reference ?? ""),
      );
  }

  // The keyed verifiers (they cover the station's id), so a first connection needs no scrypt.
  const key = configuredVerifierKey();
  const verified = pending.filter((p) => idOf.has(p.nameKey) && hashOf.has(p.index));
  if (key && verified.length > 0) {
    const ids = verified.map((p) => idOf.get(p.nameKey)!);
    const verifiers = verified.map((p, i) =>
      stationVerifier(key, ids[i]!, hashOf.get(p.index)!, Buffer.from(p.input.password!)),
    );
    await db.$executeRaw`
      UPDATE stations SET password_verifier = v.verifier
        FROM unnest(${ids}::int[], ${verifiers}::text[]) AS v(id, verifier)
       WHERE stations.id = v.id`;
  }

  if (idOf.size > 0) {
    const [rows, chargerUrls, ocppBase] = [
      await db.station.findMany({
        where: { id: { in: [...idOf.values()] } },
        include: stationInclude,
      }),
      await loadChargerUrls(db, tenantId),
      await readyDomainBase(db, tenantId),
    ];
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const p of pending) {
      const id = idOf.get(p.nameKey);
      if (id === undefined) continue;
      results[p.index] = {
        index: p.index,
        status: 201,
        station: presentStation(byId.get(id)!, [], chargerUrls, ocppBase),
      };
    }
  }
  const data = results.map((r) => r!);
  const created = data.filter((r) => r.status === 201).length;
  return { data, created, failed: data.length - created };
}
