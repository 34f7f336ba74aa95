/**
 * Stations for the connection benchmarks, made in three statements however many there are
 * (registering 20,000 one by one through the service takes minutes of setup and measures nothing
 * these benchmarks are about). Each is what `registerStation` makes for one connector: the station,
 * EVSE 1, connector 1.
 */
import crypto from "node:crypto";
import type { Db } from "../server/db";

/**
 * A password hash in the product's stored format (`scrypt$N$r$p$salt$hash`, parameters read from
 * the hash) with the cheapest scrypt cost. The connection benchmarks measure holding sockets, not
 * handshakes: at the product's cost (N=2^14, about 40 checks per second per core here) connecting
 * 20,000 chargers alone would take ten minutes. Handshake cost has its own benchmark.
 */
export function cheapPasswordHash(password: string) {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(password, salt, 32, { N: 2, r: 1, p: 1 });
  return ["scrypt", 2, 1, 1, salt.toString("base64"), hash.toString("base64")].join("$");
}

/** A location for a tenant's bench stations; what `insertBenchStations` takes for each tenant. */
export async function benchLocation(db: Db, tenantId: number) {
  const location = await db.location.create({
    data: { tenantId, name: "Bench", address: {}, latitude: 0, longitude: 0, timeZone: "UTC" },
  });
  return { tenantId, locationId: location.id };
}

/**
 * Stations `<prefix><first>`…`<prefix><first + count - 1>`, station i in `tenants[i % n]` (at that
 * tenant's location); returns their ids by name.
 */
export async function insertBenchStations(
  db: Db,
  s: {
    tenants: { tenantId: number; locationId: number }[];
    prefix: string;
    first: number;
    count: number;
    passwordHash: string;
  },
) {
  const tenantIds = s.tenants.map((t) => t.tenantId);
  const locationIds = s.tenants.map((t) => t.locationId);
  const rows = await db.$queryRaw<{ id: number; name: string }[]>`
    WITH s AS (
      INSERT INTO stations (tenant_id, location_id, name, name_key, password_hash, updated_at)
      SELECT (${tenantIds}::int[])[1 + i % ${s.tenants.length}],
             (${locationIds}::int[])[1 + i % ${s.tenants.length}],
             ${s.prefix} || i, lower(${s.prefix} || i), ${s.passwordHash}, now()
      FROM generate_series(${s.first}::int, ${s.first + s.count - 1}::int) AS i
      RETURNING id, tenant_id, name
    ), e AS (
      INSERT INTO evses (tenant_id, station_id, evse_number)
      SELECT tenant_id, id, 1 FROM s
      RETURNING id, tenant_id, station_id
    ), c AS (
      INSERT INTO connectors (tenant_id, station_id, evse_id, connector_number, evse_connector_number)
      SELECT tenant_id, station_id, id, 1, 1 FROM e
    )
    SELECT id, name FROM s`;
  return new Map(rows.map((r) => [r.name, r.id]));
}
