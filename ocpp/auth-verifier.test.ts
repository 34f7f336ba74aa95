import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { verifyPassword } from "../server/lib/passwords";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const PASSWORD = "verifier-password-01";

/** The real scrypt verifier, counting its checks. */
function watchedScrypt() {
  const watched = {
    checks: 0,
    verify: (password: Buffer, hash: string) => {
      watched.checks += 1;
      return verifyPassword(password, hash);
    },
  };
  return watched;
}

/** A station whose password was set through the API (offline: stored with its verifier). */
async function aVerifiedStation(password = PASSWORD) {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, password);
  const setPassword = async (next: string) => {
    const put = await call("PUT", `/v1/tenants/${t.tenantId}/stations/${station.id}/credentials`, {
      key: t.key,
      body: { password: next },
      idempotencyKey: idem(),
    });
    expect(put.body.result).toEqual({ applied: "stored" });
  };
  return { id: station.id, name: station.name, setPassword };
}

/**
 * Opens and closes one charger's connection: "connected" once the gateway has recorded both (so
 * the station is offline again), or the refusal's HTTP status.
 */
async function connectOnce(url: string, identity: string, password: string) {
  const row = () => db().station.findUniqueOrThrow({ where: { nameKey: identity.toLowerCase() } });
  const before = (await row()).connectedAt?.getTime();
  const charger = aCharger({ url, identity, password, protocol: "ocpp1.6" });
  try {
    await charger.connect();
    await charger.close({ force: true });
    await waitUntil(async () => {
      const { connectedAt, gatewayId } = await row();
      return connectedAt?.getTime() !== before && gatewayId === null;
    });
    return "connected";
  } catch (error) {
    return (error as { code?: number }).code ?? "failed";
  }
}

describe("the keyed reconnect verifier", () => {
  const scrypt = watchedScrypt();
  const scrypt2 = watchedScrypt();
  const gw = aLiveGateway({
    auth: { verifyPassword: scrypt.verify, limits: { failuresPerName: 3 } },
  });
  const gw2 = aLiveGateway({ auth: { verifyPassword: scrypt2.verify } });

  it("lets a reconnecting charger in without scrypt: set through the API, or left by its first full check, and kept in the database across gateways", async () => {
    const station = await aVerifiedStation();
    const before = scrypt.checks;
    expect(await connectOnce(gw.url, station.name, PASSWORD)).toBe("connected");
    expect(await connectOnce(gw.url, station.name, PASSWORD)).toBe("connected");
    expect(scrypt.checks).toBe(before);
    // A password without a verifier (as a pushed one is until its first use) costs one scrypt,
    // which leaves the verifier: the next connection, to another gateway too, needs none.
    await db().station.update({ where: { id: station.id }, data: { passwordVerifier: null } });
    expect(await connectOnce(gw.url, station.name, PASSWORD)).toBe("connected");
    expect(scrypt.checks).toBe(before + 1);
    const stored = await db().station.findUniqueOrThrow({ where: { id: station.id } });
    expect(stored.passwordVerifier).toMatch(/^v1\./);
    expect(stored.passwordVerifier).not.toContain(PASSWORD);
    const other = scrypt2.checks;
    expect(await connectOnce(gw2.url, station.name, PASSWORD)).toBe("connected");
    expect(await connectOnce(gw.url, station.name, PASSWORD)).toBe("connected");
    expect(scrypt.checks).toBe(before + 1);
    expect(scrypt2.checks).toBe(other);
  });

  it("a password change refuses the old password at once on every gateway, and the new one is accepted", async () => {
    const station = await aVerifiedStation();
    for (const url of [gw.url, gw2.url])
      expect(await connectOnce(url, station.name, PASSWORD)).toBe("connected");
    await station.setPassword("changed-password-002");
    for (const url of [gw.url, gw2.url]) {
      expect(await connectOnce(url, station.name, PASSWORD)).toBe(401);
      expect(await connectOnce(url, station.name, "changed-password-002")).toBe("connected");
    }
  });

  it("is bound to the current hash: a hash written without clearing the verifier still refuses the old password", async () => {
    const station = await aVerifiedStation();
    const other = await aVerifiedStation("other-password-00003");
    const { passwordHash } = await db().station.findUniqueOrThrow({ where: { id: other.id } });
    // Only the hash changes (as a writer that forgot the verifier would do it).
    await db()
      .$executeRaw`UPDATE stations SET password_hash = ${passwordHash} WHERE id = ${station.id}`;
    for (const url of [gw.url, gw2.url]) {
      expect(await connectOnce(url, station.name, PASSWORD)).toBe(401);
      expect(await connectOnce(url, station.name, "other-password-00003")).toBe("connected");
    }
  });

  it("a wrong password still costs a scrypt and counts; past the name's limit the right one is refused 429 without a check", async () => {
    const station = await aVerifiedStation();
    const before = scrypt.checks;
    const bucket = `ocpp-auth:name:${station.name.toLowerCase()}`;
    for (let i = 1; i <= 3; i++) {
      expect(await connectOnce(gw.url, station.name, `wrong-password-000${i}`)).toBe(401);
      expect(scrypt.checks).toBe(before + i);
      const window = await db().rateLimitWindow.findUniqueOrThrow({ where: { apiKeyId: bucket } });
      expect(window.count).toBe(i);
    }
    expect(await connectOnce(gw.url, station.name, PASSWORD)).toBe(429);
    expect(scrypt.checks).toBe(before + 3);
  });
});

describe("the reconnect throttle", () => {
  // Two handshakes at once, two waiting, for at most 100 ms: far fewer than arrive.
  const gw = aLiveGateway({
    auth: { gate: { concurrency: 2, maxWaiting: 2, maxWaitMs: 100 } },
  });

  it("answers 503 at once past its capacity, and admits every charger that keeps retrying", async () => {
    const stations = [];
    for (let i = 0; i < 30; i++) stations.push(await aVerifiedStation());
    const refusals: unknown[] = [];
    const chargers = stations.map((s) =>
      aCharger({ url: gw.url, identity: s.name, password: PASSWORD, protocol: "ocpp1.6" }),
    );
    try {
      await Promise.all(
        chargers.map(async (charger) => {
          for (;;) {
            const started = performance.now();
            try {
              return await charger.connect();
            } catch (error) {
              const status = (error as { code?: number }).code;
              refusals.push(status);
              expect(status).toBe(503);
              expect(performance.now() - started).toBeLessThan(2_000); // quickly, not held
              await new Promise((r) => setTimeout(r, 20 + Math.random() * 200));
            }
          }
        }),
      );
      expect(refusals.length).toBeGreaterThan(0);
      await waitUntil(() => gw.gateway.connectionCount() === 30);
    } finally {
      await Promise.all(chargers.map((c) => c.close({ force: true })));
    }
  }, 60_000);
});
