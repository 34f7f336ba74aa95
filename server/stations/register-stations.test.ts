import { describe, expect, it, vi } from "vitest";
import { db } from "../db";
import { verifyPassword } from "../lib/passwords";
import { call, idem } from "../../testing/api";
import {
  aLocation,
  aStation,
  aTenantWithKey,
  anotherKey,
  uniqueStationName,
} from "../../testing/builders";
import { aConnectedCharger, handshake } from "../../testing/ocpp";
import { aLiveGateway } from "../../testing/live-gateway";
import { passwordPool } from "../lib/password-pool";
import { MAX_BULK_STATIONS, MAX_HASH_BACKLOG_PER_THREAD } from "./register-stations";

const gw = aLiveGateway();

const bulk = (tenantId: number, key: string, body: unknown, idempotencyKey = idem()) =>
  call("POST", `/v1/tenants/${tenantId}/stations/bulk`, { key, body, idempotencyKey });

const PASSWORD = "bulk-onboarding-pass-01";

describe("POST /v1/tenants/{tenant_id}/stations/bulk", () => {
  it("registers the valid items and answers each refused one in its place with the single route's status and error", async () => {
    const t = await aTenantWithKey();
    const other = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const foreign = await aLocation(other.tenantId, other.key);
    const existing = await aStation(t.tenantId, t.key, { external_reference: "ref-taken" });
    const [a, b, c] = [uniqueStationName("BA"), uniqueStationName("BB"), uniqueStationName("BC")];
    const item = (over: Record<string, unknown>) => ({
      location_id: location.id,
      connector_count: 2,
      ...over,
    });
    const res = await bulk(t.tenantId, t.key, {
      stations: [
        item({ name: a, password: PASSWORD, external_reference: "ref-a" }),
        item({ name: "bad name!", password: "short" }),
        item({ name: b, location_id: foreign.id }),
        item({ name: a.toUpperCase() }), // the same name (any case) again in this request
        item({ name: existing.name }),
        item({ name: uniqueStationName("BD"), external_reference: "ref-taken" }),
        "not an object",
        item({ name: c, connector_count: 3 }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(2);
    expect(res.body.failed).toBe(6);
    const results = res.body.data as {
      index: number;
      status: number;
      station?: { id: number; name: string; connectors: unknown[]; online: boolean };
      error?: { code: string; message: string; details: Record<string, unknown> };
    }[];
    expect(results.map((r) => [r.index, r.status, r.error?.code ?? r.station?.name])).toEqual([
      [0, 201, a],
      [1, 422, "validation_failed"],
      [2, 422, "location_not_found"],
      [3, 409, "station_name_taken"],
      [4, 409, "station_name_taken"],
      [5, 409, "external_reference_taken"],
      [6, 422, "validation_failed"],
      [7, 201, c],
    ]);
    expect(results[1]!.error!.details.fields).toEqual([
      expect.objectContaining({ field: "stations.1.name", location: "body" }),
      expect.objectContaining({ field: "stations.1.password", location: "body" }),
    ]);
    expect(results[6]!.error!.details.fields).toEqual([
      expect.objectContaining({ field: "stations.6", location: "body" }),
    ]);
    // each created station is what the single route would have made, and reads back the same
    expect(results[7]!.station!.connectors).toHaveLength(3);
    for (const r of [results[0]!, results[7]!]) {
      const read = await call("GET", `/v1/tenants/${t.tenantId}/stations/${r.station!.id}`, {
        key: t.key,
      });
      expect(read.body).toEqual(r.station);
    }
    // nothing was made for a refused item
    expect(await db().station.count({ where: { name: { in: [b, "bad name!"] } } })).toBe(0);
    expect(await db().station.count({ where: { tenantId: t.tenantId } })).toBe(3);
    // the password: scrypt with today's parameters, and its keyed verifier
    const row = await db().station.findUniqueOrThrow({ where: { id: results[0]!.station!.id } });
    expect(row.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword(PASSWORD, row.passwordHash!)).toBe(true);
    expect(await verifyPassword("another-password-01", row.passwordHash!)).toBe(false);
    expect(row.passwordVerifier).toMatch(/^v1\./);
    const noPassword = await db().station.findUniqueOrThrow({
      where: { id: results[7]!.station!.id },
    });
    expect(noPassword.passwordHash).toBeNull();
  });

  it("replays the same answer for the same Idempotency-Key, registering nothing twice; another body under it is 422", async () => {
    const t = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const body = {
      stations: [
        { name: uniqueStationName("IA"), location_id: location.id, connector_count: 1 },
        {
          name: uniqueStationName("IB"),
          location_id: location.id,
          connector_count: 1,
          password: PASSWORD,
        },
        { name: "", location_id: location.id, connector_count: 1 },
      ],
    };
    const key = idem();
    const first = await bulk(t.tenantId, t.key, body, key);
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(2);
    const again = await bulk(t.tenantId, t.key, body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await db().station.count({ where: { tenantId: t.tenantId } })).toBe(2);
    const reused = await bulk(t.tenantId, t.key, { stations: body.stations.slice(0, 1) }, key);
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe("idempotency_key_reused");
    // the same items under a new key: now taken, each refused in its place, nothing new made
    const fresh = await bulk(t.tenantId, t.key, body);
    expect(fresh.body.data.map((r: { status: number }) => r.status)).toEqual([409, 409, 422]);
    expect(await db().station.count({ where: { tenantId: t.tenantId } })).toBe(2);
  });

  it("keeps tenants apart, needs stations:write and an Idempotency-Key, and takes 1 to 100 items", async () => {
    const t = await aTenantWithKey();
    const other = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const one = {
      stations: [{ name: uniqueStationName("TI"), location_id: location.id, connector_count: 1 }],
    };
    // another tenant's key on this tenant's path: the same 404 as a tenant that does not exist
    const foreign = await bulk(t.tenantId, other.key, one);
    expect(foreign.status).toBe(404);
    const reader = await anotherKey(t.tenantId, ["stations:read"]);
    const readOnly = await bulk(t.tenantId, reader, one);
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.code).toBe("insufficient_scope");
    const noKey = await call("POST", `/v1/tenants/${t.tenantId}/stations/bulk`, {
      key: t.key,
      body: one,
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.code).toBe("idempotency_key_missing");
    for (const [body, field] of [
      [{ stations: [] }, "stations"],
      [
        { stations: Array.from({ length: MAX_BULK_STATIONS + 1 }, () => one.stations[0]) },
        "stations",
      ],
      [{ stations: "all" }, "stations"],
      [{ stations: one.stations, extra: 1 }, "extra"],
      [[one.stations[0]], "body"],
    ] as const) {
      const res = await bulk(t.tenantId, t.key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.fields[0].field).toBe(field);
    }
    expect(MAX_BULK_STATIONS).toBe(100);
    expect(await db().station.count({ where: { tenantId: t.tenantId } })).toBe(0);
    expect(await db().station.count({ where: { tenantId: other.tenantId } })).toBe(0);
    // exactly 100 is accepted
    const hundred = await bulk(t.tenantId, t.key, {
      stations: Array.from({ length: MAX_BULK_STATIONS }, () => ({
        name: uniqueStationName("H"),
        location_id: location.id,
        connector_count: 1,
      })),
    });
    expect(hundred.status).toBe(200);
    expect(hundred.body.created).toBe(MAX_BULK_STATIONS);
  });

  it("refuses 503 with Retry-After, registering nothing, while the hashing pool is full; the same key then succeeds", async () => {
    const t = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const body = {
      stations: [
        {
          name: uniqueStationName("FU"),
          location_id: location.id,
          connector_count: 1,
          password: PASSWORD,
        },
      ],
    };
    const key = idem();
    const pool = passwordPool();
    // the pool's gauge reads full (filling it for real would take half a minute of both cores)
    const full = vi.spyOn(pool, "backlog").mockReturnValue(pool.size * MAX_HASH_BACKLOG_PER_THREAD);
    try {
      const busy = await bulk(t.tenantId, t.key, body, key);
      expect(busy.status).toBe(503);
      expect(busy.body.error.code).toBe("service_unavailable");
      expect(busy.headers.get("retry-after")).toBe("5");
    } finally {
      full.mockRestore();
    }
    expect(await db().station.count({ where: { tenantId: t.tenantId } })).toBe(0);
    const retried = await bulk(t.tenantId, t.key, body, key);
    expect(retried.status).toBe(200);
    expect(retried.body.created).toBe(1);
  });

  it("hashes the passwords before its transaction opens, and not at all for a replay", async () => {
    const t = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const body = {
      stations: [0, 1, 2].map(() => ({
        name: uniqueStationName("HB"),
        location_id: location.id,
        connector_count: 1,
        password: PASSWORD,
      })),
    };
    const pool = passwordPool();
    const hashAll = pool.hashAll.bind(pool);
    // the real pool, watched: what transactions this database has open when a hashing starts
    const openWhenHashing: number[] = [];
    const watched = vi.spyOn(pool, "hashAll").mockImplementation(async (passwords) => {
      const [open] = await db().$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND state LIKE 'idle in transaction%'`;
      openWhenHashing.push(open!.n);
      return hashAll(passwords);
    });
    try {
      const key = idem();
      const first = await bulk(t.tenantId, t.key, body, key);
      expect(first.status).toBe(200);
      expect(first.body.created).toBe(3);
      expect(watched).toHaveBeenCalledTimes(1);
      expect(watched.mock.calls[0]![0]).toHaveLength(3);
      expect(openWhenHashing).toEqual([0]);
      // the replay answers from the record, hashing nothing
      const replay = await bulk(t.tenantId, t.key, body, key);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body).toEqual(first.body);
      expect(watched).toHaveBeenCalledTimes(1);
    } finally {
      watched.mockRestore();
    }
    const stored = await db().station.findMany({
      where: { tenantId: t.tenantId },
      select: { passwordHash: true },
    });
    expect(stored).toHaveLength(3);
    for (const { passwordHash } of stored)
      expect(await verifyPassword(PASSWORD, passwordHash!)).toBe(true);
  });

  it("a bulk-registered station's password authenticates a strict ocpp-rpc charger (verifier and scrypt paths); a wrong one is 401", async () => {
    const t = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const names = [uniqueStationName("OA"), uniqueStationName("OB")];
    const res = await bulk(t.tenantId, t.key, {
      stations: names.map((name) => ({
        name,
        location_id: location.id,
        connector_count: 1,
        password: PASSWORD,
      })),
    });
    expect(res.body.created).toBe(2);
    // the second without its verifier: the gateway must check the scrypt hash itself
    await db().station.update({
      where: { nameKey: names[1]!.toLowerCase() },
      data: { passwordVerifier: null },
    });
    for (const name of names) {
      expect((await handshake(gw.url, name, "wrong-password-0001")).status).toBe(401);
      const charger = await aConnectedCharger(gw, { name }, PASSWORD, "ocpp2.0.1");
      const boot = (await charger.call("BootNotification", {
        reason: "PowerUp",
        chargingStation: { vendorName: "Bulk", model: "Onboarded" },
      })) as { status: string };
      expect(boot.status).toBe("Accepted");
      await charger.close({ force: true });
    }
  });
});
