import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { localListSyncJob } from "../server/local-lists/auto-sync";
import { SEND_RETRY_MS } from "../server/local-lists/operation-kinds/local-list";
import { call, idem } from "../testing/api";
import { aLiveGateway } from "../testing/live-gateway";
import { aRecordingCharger, type Answer } from "../testing/recording-charger";
import { waitUntil } from "../testing/ocpp";

// The list sync runs on the gateway's job runner, as in the ocpp process (server/background-jobs.ts).
// A charger's answer is awaited up to 6 s: one test holds an answer back.
const gw = aLiveGateway({ jobs: [localListSyncJob], callTimeoutMs: 6_000 });

/**
 * A strict charger whose station keeps a local list: the first version is sent through the API,
 * so later token changes reach it by themselves (issue 28, point 4).
 */
async function setup(protocol: "ocpp1.6" | "ocpp2.0.1", answerSend?: Answer) {
  const c = await aRecordingCharger({
    url: gw.url,
    protocol,
    password: "list-sync-pass-001",
    answers: {
      SendLocalList: answerSend ?? (() => Promise.resolve({ status: "Accepted" })),
    },
  });
  const tenant = `/v1/tenants/${c.tenantId}`;
  const base = `${tenant}/stations/${c.station.id}`;
  const issue = (token: string) =>
    db().authorizationToken.create({
      data: { tenantId: c.tenantId, token, source: "start_command", expiresAt: null },
    });
  const block = (token: string) =>
    call("PUT", `${tenant}/tokens/${token}/block`, { key: c.key, idempotencyKey: idem() });
  const state = async () => (await call("GET", `${base}/local-list`, { key: c.key })).body;
  const sends = () => c.calls("SendLocalList").map((r) => r.params);
  return { ...c, base, issue, block, state, sends };
}

describe("local lists kept in step with the tokens", () => {
  it("OCPP 1.6: a blocked token reaches the charger as a differential of the next version, a burst in one, an offline station when it reconnects", async () => {
    const s = await setup("ocpp1.6");
    try {
      await s.issue("TAG-A");
      await s.issue("TAG-B");
      await s.issue("TAG-C");
      const first = await call("POST", `${s.base}/local-list`, {
        key: s.key,
        body: { update_type: "full" },
        idempotencyKey: idem(),
      });
      expect(first.body.status).toBe("succeeded");
      expect(s.sends()).toHaveLength(1);

      // the operator blocks a token: no API call for the list, the charger gets version 2
      expect((await s.block("TAG-B")).status).toBe(200);
      await waitUntil(() => s.sends().length === 2);
      expect(s.sends()[1]).toEqual({
        listVersion: 2,
        updateType: "Differential",
        localAuthorizationList: [{ idTag: "TAG-B", idTagInfo: { status: "Blocked" } }],
      });
      await waitUntil(async () => (await s.state()).version === 2);
      expect(await s.state()).toMatchObject({ version: 2, in_step: true, entries: 3 });

      // two blocks in a burst go as one version
      await s.block("TAG-A");
      await s.block("TAG-C");
      await waitUntil(async () => (await s.state()).version === 3);
      expect(s.sends()[2]).toEqual({
        listVersion: 3,
        updateType: "Differential",
        localAuthorizationList: [
          { idTag: "TAG-A", idTagInfo: { status: "Blocked" } },
          { idTag: "TAG-C", idTagInfo: { status: "Blocked" } },
        ],
      });

      // offline: the change waits for the reconnect, then goes as the next version
      await s.close();
      await waitUntil(
        async () =>
          (await db().station.findUniqueOrThrow({ where: { id: s.station.id } })).gatewayId ===
          null,
      );
      await call("DELETE", `/v1/tenants/${s.tenantId}/tokens/TAG-A/block`, {
        key: s.key,
        idempotencyKey: idem(),
      });
      await new Promise((r) => setTimeout(r, 2_500));
      expect(s.sends()).toHaveLength(3);
      expect(
        await db().operation.count({
          where: { stationId: s.station.id, scope: "station.local_list_send" },
        }),
      ).toBe(3);
      await s.reconnect();
      await waitUntil(() => s.sends().length === 4);
      expect(s.sends()[3]).toEqual({
        listVersion: 4,
        updateType: "Differential",
        localAuthorizationList: [{ idTag: "TAG-A", idTagInfo: { status: "Accepted" } }],
      });
      await waitUntil(async () => (await s.state()).version === 4);

      const synced = await db().event.findMany({
        where: { tenantId: s.tenantId, type: "station.local_list_synced" },
        orderBy: { id: "asc" },
      });
      expect(synced.map((e) => (e.data as { version: number }).version)).toEqual([1, 2, 3, 4]);
    } finally {
      await s.close();
    }
  });

  it("OCPP 2.0.1: a blocked token goes as a differential idTokenInfo Blocked; a change while a version is in flight goes as the next one, in order", async () => {
    let release: () => void = () => {};
    let hold = false;
    const s = await setup("ocpp2.0.1", async () => {
      if (hold) await new Promise<void>((r) => (release = r));
      return { status: "Accepted" };
    });
    try {
      await s.issue("app-user-1");
      await s.issue("app-user-2");
      await call("POST", `${s.base}/local-list`, {
        key: s.key,
        body: {},
        idempotencyKey: idem(),
      });
      expect(s.sends()).toHaveLength(1);

      hold = true;
      await s.block("app-user-1");
      await waitUntil(() => s.sends().length === 2);
      expect(s.sends()[1]).toEqual({
        versionNumber: 2,
        updateType: "Differential",
        localAuthorizationList: [
          {
            idToken: { idToken: "app-user-1", type: "Central" },
            idTokenInfo: { status: "Blocked" },
          },
        ],
      });
      // version 2 is unanswered: the next change waits for it, then follows as version 3
      hold = false;
      await s.block("app-user-2");
      await new Promise((r) => setTimeout(r, 1_500));
      expect(s.sends()).toHaveLength(2);
      release();
      await waitUntil(() => s.sends().length === 3);
      expect(s.sends()[2]).toEqual({
        versionNumber: 3,
        updateType: "Differential",
        localAuthorizationList: [
          {
            idToken: { idToken: "app-user-2", type: "Central" },
            idTokenInfo: { status: "Blocked" },
          },
        ],
      });
      await waitUntil(async () => (await s.state()).version === 3);
      expect(await s.state()).toMatchObject({ in_step: true, entries: 2 });
    } finally {
      await s.close();
    }
  });

  it("a version left unanswered is sent again by itself, full, after the retry delay, doubled for the next", async () => {
    let hold = false;
    const s = await setup("ocpp1.6", async () => {
      if (hold) await new Promise(() => {}); // never answered: the send ends unknown
      return { status: "Accepted" };
    });
    try {
      await s.issue("TAG-R1");
      await s.issue("TAG-R2");
      await call("POST", `${s.base}/local-list`, {
        key: s.key,
        body: { update_type: "full" },
        idempotencyKey: idem(),
      });
      hold = true;
      await s.block("TAG-R1");
      await waitUntil(() => s.sends().length === 2);
      const unanswered = () =>
        db().operation.count({
          where: { stationId: s.station.id, scope: "station.local_list_send", status: "unknown" },
        });
      const job = `local_list.sync:${s.station.id}`;
      /** the sync armed again, `delay` from now; its time then comes (moved here, not waited for) */
      const retried = async (delay: number) => {
        const armed = await db().job.findUniqueOrThrow({ where: { id: job } });
        expect(armed.status).toBe("queued");
        const wait = armed.runAt.getTime() - Date.now();
        expect(wait).toBeGreaterThan(delay - 10_000);
        expect(wait).toBeLessThanOrEqual(delay);
        await db().$executeRaw`UPDATE jobs SET run_at = now() WHERE id = ${job}`;
        await db().$executeRaw`SELECT pg_notify('jobs', ${armed.queue})`;
      };
      await waitUntil(async () => (await unanswered()) === 1, 15_000);
      expect(s.sends()).toHaveLength(2);
      // SEND_RETRY_MS after the first unanswered send, then twice that: both full, version 2 again
      await retried(SEND_RETRY_MS);
      await waitUntil(() => s.sends().length === 3);
      await waitUntil(async () => (await unanswered()) === 2, 15_000);
      hold = false;
      await retried(2 * SEND_RETRY_MS);
      await waitUntil(() => s.sends().length === 4);
      expect(s.sends()[3]).toEqual(s.sends()[2]);
      expect(s.sends()[2]).toEqual({
        listVersion: 2,
        updateType: "Full",
        localAuthorizationList: [
          { idTag: "TAG-R1", idTagInfo: { status: "Blocked" } },
          { idTag: "TAG-R2", idTagInfo: { status: "Accepted" } },
        ],
      });
      await waitUntil(async () => (await s.state()).version === 2);
      expect(await s.state()).toMatchObject({ in_step: true, entries: 2 });
    } finally {
      await s.close();
    }
  });

  it("a station that never confirmed a list is left alone", async () => {
    const s = await setup("ocpp1.6");
    try {
      await s.issue("TAG-X");
      await s.block("TAG-X");
      await new Promise((r) => setTimeout(r, 2_000));
      expect(s.sends()).toEqual([]);
      expect(await db().job.count({ where: { id: `local_list.sync:${s.station.id}` } })).toBe(0);
    } finally {
      await s.close();
    }
  });
});
