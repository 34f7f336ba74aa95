import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { verifyPassword } from "../server/lib/passwords";
import { aStation, aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { handshake } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const PASSWORD = "timing-password-0001";
const ROUNDS = 30;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * What an outside prober measures, through the real gateway with its production limits (10
 * attempts per name a minute): every kind of name answered a wrong password, interleaved.
 */
describe("refusal time says nothing about a station name", () => {
  let checks = 0;
  const gw = aLiveGateway({
    auth: {
      verifyPassword: (password, hash) => {
        checks += 1;
        return verifyPassword(password, hash);
      },
    },
  });

  it(`${ROUNDS} wrong passwords each: fresh unknown names, one unknown name again and again, a known name with and without its fast verifier, a station without a password; medians within 1.5× of each other, while the right password stays fast`, async () => {
    const t = await aTenantWithKey();
    const verified = await aStationWithPassword(t, PASSWORD);
    const unverified = await aStationWithPassword(t, PASSWORD);
    await db().station.update({ where: { id: unverified.id }, data: { passwordVerifier: null } });
    const passwordless = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const reconnecting = await aStationWithPassword(t, PASSWORD);
    const kinds = {
      unknown: (i: number) => `ghost-${i}-${t.tenantId}`,
      "unknown again": () => `ghost-again-${t.tenantId}`,
      "known, verifier": () => verified.name,
      "known, no verifier": () => unverified.name,
      passwordless: () => passwordless.name,
    };
    const names = Object.keys(kinds) as (keyof typeof kinds)[];
    const times = Object.fromEntries(names.map((k) => [k, [] as number[]]));
    const statuses = Object.fromEntries(names.map((k) => [k, [] as number[]]));
    // warm: the first handshakes of a process are slower, and checked refusals set the pace
    for (let i = 0; i < 10; i++)
      await handshake(gw.url, `warm-${i}-${t.tenantId}`, "wrong-guess-xyz", {
        "x-forwarded-for": "198.18.2.1",
      });
    const checksBefore = checks;
    for (let i = 0; i < ROUNDS; i++) {
      // each round from an address of its own (the per-address limit is another test's); the
      // order turns each round so no kind always follows the same one
      const headers = { "x-forwarded-for": `198.18.0.${i}` };
      for (let j = 0; j < names.length; j++) {
        const kind = names[(i + j) % names.length]!;
        const result = await handshake(gw.url, kinds[kind](i), `wrong-guess-${i}-xyz`, headers);
        times[kind]!.push(result.ms);
        statuses[kind]!.push(result.status);
      }
    }
    // Every name tried 30 times is locked after its 10th attempt, known or not: 429s, which
    // check no password (the limit's purpose), yet take as long as a checked 401.
    for (const kind of names.filter((k) => k !== "unknown")) {
      expect(statuses[kind]!.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses[kind]!.slice(10)).toEqual(Array(ROUNDS - 10).fill(429));
    }
    expect(statuses.unknown).toEqual(Array(ROUNDS).fill(401));
    const refusedAfterCheck = Object.values(statuses)
      .flat()
      .filter((s) => s === 401).length;
    expect(checks - checksBefore).toBe(refusedAfterCheck);

    const reference = median(times.unknown!);
    const ratios = Object.fromEntries(names.map((k) => [k, median(times[k]!) / reference]));
    // Before: the 429s took ~4 ms against ~45 ms for a checked refusal (ratios ~0.1), the 7×
    // measured from outside.
    const medians = names.map((k) => `${k} ${median(times[k]!).toFixed(0)} ms`).join(", ");
    for (const kind of names) {
      expect(ratios[kind], `${kind} (${medians})`).toBeGreaterThan(1 / 1.5);
      expect(ratios[kind], `${kind} (${medians})`).toBeLessThan(1.5);
    }

    // The right password of a station with its verifier is still accepted without scrypt.
    const right: number[] = [];
    const checksBeforeRight = checks;
    for (let i = 0; i < 10; i++) {
      const result = await handshake(gw.url, reconnecting.name, PASSWORD, {
        "x-forwarded-for": `198.18.1.${i}`,
      });
      expect(result.status).toBe(101);
      right.push(result.ms);
    }
    expect(checks).toBe(checksBeforeRight);
    expect(median(right)).toBeLessThan(reference / 2);
  }, 120_000);
});
