import { describe, expect, it } from "vitest";
import type { RPCClient } from "ocpp-rpc";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey, anotherKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

type Answer = (params: any) => Record<string, unknown>;

async function setup(protocol: "ocpp1.6" | "ocpp2.0.1", answers: Record<string, Answer>) {
  const t = await aTenantWithKey();
  const operator = await anotherKey(t.tenantId, ["stations:read", "stations:control"]);
  const station = await aStationWithPassword(t, "local-list-pass-01");
  const received: [string, any][] = [];
  const charger: RPCClient = await aConnectedCharger(
    gw,
    station,
    "local-list-pass-01",
    protocol,
    (c) => {
      for (const [action, answer] of Object.entries(answers))
        c.handle(action, ({ params }: { params?: any }) => {
          received.push([action, params]);
          return Promise.resolve(answer(params));
        });
    },
  );
  const base = `/v1/tenants/${t.tenantId}/stations/${station.id}`;
  await waitUntil(async () => (await call("GET", base, { key: t.key })).body.online);
  const send = (body: Record<string, unknown> = {}) =>
    call("POST", `${base}/local-list`, { key: operator, body, idempotencyKey: idem() });
  const state = async () => (await call("GET", `${base}/local-list`, { key: operator })).body;
  const token = (token: string, data: { expiresAt?: Date | null; blockedAt?: Date | null } = {}) =>
    db().authorizationToken.upsert({
      where: { tenantId_token: { tenantId: t.tenantId, token } },
      create: { tenantId: t.tenantId, token, source: "start_command", ...data },
      update: data,
    });
  return { ...t, operator, station, charger, base, received, send, state, token };
}

const expiry = new Date("2030-01-01T00:00:00.000Z");

describe("local authorization lists (OCPP 1.6)", () => {
  it("sends a full list first, then differentials in order; a VersionMismatch falls back to a full update", async () => {
    const answers: string[] = [];
    const s = await setup("ocpp1.6", {
      SendLocalList: () => ({ status: answers.shift() ?? "Accepted" }),
    });
    try {
      await s.token("TAG-A", { expiresAt: expiry });
      await s.token("TAG-B", { expiresAt: expiry });
      await s.token("TAG-OLD", { expiresAt: new Date(Date.now() - 1000) });
      expect(await s.state()).toMatchObject({ version: 0, synced_at: null, in_step: false });

      // no list held yet: a differential asked for is sent full
      const first = await s.send();
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ scope: "station.local_list_send", status: "succeeded" });
      expect(s.received[0]).toEqual([
        "SendLocalList",
        {
          listVersion: 1,
          updateType: "Full",
          localAuthorizationList: [
            { idTag: "TAG-A", idTagInfo: { status: "Accepted", expiryDate: expiry.toISOString() } },
            { idTag: "TAG-B", idTagInfo: { status: "Accepted", expiryDate: expiry.toISOString() } },
          ],
        },
      ]);
      const afterFirst = await s.state();
      expect(afterFirst).toMatchObject({ version: 1, in_step: true, entries: 2 });
      expect(Date.parse(afterFirst.synced_at)).toBeGreaterThan(Date.now() - 60_000);

      // the operator blocks one token, another is issued: only those go, as version 2
      await s.token("TAG-B", { blockedAt: new Date() });
      await s.token("TAG-C", { expiresAt: null });
      const second = await s.send({ update_type: "differential" });
      expect(second.body.status).toBe("succeeded");
      expect(s.received[1]).toEqual([
        "SendLocalList",
        {
          listVersion: 2,
          updateType: "Differential",
          localAuthorizationList: [
            { idTag: "TAG-B", idTagInfo: { status: "Blocked" } },
            { idTag: "TAG-C", idTagInfo: { status: "Accepted" } },
          ],
        },
      ]);
      expect(await s.state()).toMatchObject({ version: 2, in_step: true, entries: 3 });

      // a token gone from the service is removed (idTag alone); the charger says VersionMismatch
      await db().authorizationToken.delete({
        where: { tenantId_token: { tenantId: s.tenantId, token: "TAG-A" } },
      });
      answers.push("VersionMismatch");
      const third = await s.send();
      expect(third.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "VersionMismatch" },
      });
      expect(s.received[2]).toEqual([
        "SendLocalList",
        {
          listVersion: 3,
          updateType: "Differential",
          localAuthorizationList: [{ idTag: "TAG-A" }],
        },
      ]);
      // the fallback: a full update of version 3, its own operation
      await waitUntil(async () => (await s.state()).version === 3);
      expect(s.received[3]).toEqual([
        "SendLocalList",
        {
          listVersion: 3,
          updateType: "Full",
          localAuthorizationList: [
            { idTag: "TAG-B", idTagInfo: { status: "Blocked" } },
            { idTag: "TAG-C", idTagInfo: { status: "Accepted" } },
          ],
        },
      ]);
      const fallback = await db().operation.findFirstOrThrow({
        where: { stationId: s.station.id, scope: "station.local_list_send" },
        orderBy: { createdAt: "desc" },
      });
      expect(fallback.request).toMatchObject({ update_type: "full", fallback_for: third.body.id });
      expect(await s.state()).toMatchObject({ version: 3, in_step: true, entries: 2 });

      const synced = await db().event.findMany({
        where: { tenantId: s.tenantId, type: "station.local_list_synced" },
        orderBy: { id: "asc" },
      });
      expect(synced.map((e) => [(e.data as any).version, (e.data as any).update_type])).toEqual([
        [1, "full"],
        [2, "differential"],
        [3, "full"],
      ]);
      const station = (await call("GET", s.base, { key: s.operator })).body;
      expect(station.local_list).toMatchObject({ version: 3, in_step: true });
    } finally {
      await s.charger.close({ force: true });
    }
  });

  it("records a Failed full update and NotSupported without falling back, and reads the charger's version", async () => {
    const answers: string[] = ["Failed", "NotSupported"];
    let chargerVersion = 7;
    const s = await setup("ocpp1.6", {
      SendLocalList: () => ({ status: answers.shift() ?? "Accepted" }),
      GetLocalListVersion: () => ({ listVersion: chargerVersion }),
    });
    try {
      await s.token("TAG-A");
      const failed = await s.send({ update_type: "full" });
      expect(failed.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "Failed" },
      });
      const unsupported = await s.send({ update_type: "full" });
      expect(unsupported.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "NotSupported" },
      });
      expect(s.received.filter(([a]) => a === "SendLocalList")).toHaveLength(2);
      expect(await s.state()).toMatchObject({ version: 0, in_step: false });

      const ok = await s.send({ update_type: "full" });
      expect(ok.body.status).toBe("succeeded");
      expect(await s.state()).toMatchObject({ version: 1, in_step: true });

      const version = await call("POST", `${s.base}/local-list/version`, {
        key: s.operator,
        idempotencyKey: idem(),
      });
      expect(version.status).toBe(202);
      expect(s.received.at(-1)).toEqual(["GetLocalListVersion", {}]);
      expect(version.body.result.version).toBe(7);
      // the charger holds another version: the next send is full
      expect(await s.state()).toMatchObject({ version: 1, in_step: false });
      chargerVersion = 1;
      await s.send();
      expect(s.received.at(-1)![1]).toMatchObject({ listVersion: 2, updateType: "Full" });

      // one send in flight per station: versions never overtake each other
      const inFlight = await db().operation.create({
        data: {
          id: "op_inflight_local_list",
          tenantId: s.tenantId,
          stationId: s.station.id,
          scope: "station.local_list_send",
          action: "send_local_list",
          status: "dispatching",
          request: {},
          // claimed just now by the gateway holding the station: the sweep leaves it alone
          claimedBy: gw.gateway.id,
          claimedAt: new Date(),
        },
      });
      const busy = await s.send();
      expect(busy.status).toBe(409);
      expect(busy.body.error).toMatchObject({
        code: "local_list_busy",
        details: { operation_id: inFlight.id },
      });
      expect((await s.state()).pending_operation_id).toBe(inFlight.id);
    } finally {
      await s.charger.close({ force: true });
    }
  });
});

describe("local authorization lists (OCPP 2.0.1)", () => {
  it("sends versionNumber with idToken entries, a differential with removals, and reads versionNumber", async () => {
    const s = await setup("ocpp2.0.1", {
      SendLocalList: () => ({ status: "Accepted" }),
      GetLocalListVersion: () => ({ versionNumber: 2 }),
    });
    try {
      await s.token("app-user-1", { expiresAt: expiry });
      await s.token("app-user-2", { blockedAt: new Date() });
      await s.send();
      expect(s.received[0]).toEqual([
        "SendLocalList",
        {
          versionNumber: 1,
          updateType: "Full",
          localAuthorizationList: [
            {
              idToken: { idToken: "app-user-1", type: "Central" },
              idTokenInfo: { status: "Accepted", cacheExpiryDateTime: expiry.toISOString() },
            },
            {
              idToken: { idToken: "app-user-2", type: "Central" },
              idTokenInfo: { status: "Blocked" },
            },
          ],
        },
      ]);
      await db().authorizationToken.delete({
        where: { tenantId_token: { tenantId: s.tenantId, token: "app-user-1" } },
      });
      await s.send();
      expect(s.received[1]).toEqual([
        "SendLocalList",
        {
          versionNumber: 2,
          updateType: "Differential",
          localAuthorizationList: [{ idToken: { idToken: "app-user-1", type: "Central" } }],
        },
      ]);
      // nothing changed: a differential with no list (the schema needs one item at least)
      await s.send();
      expect(s.received[2]).toEqual([
        "SendLocalList",
        { versionNumber: 3, updateType: "Differential" },
      ]);
      const version = await call("POST", `${s.base}/local-list/version`, {
        key: s.operator,
        idempotencyKey: idem(),
      });
      expect(version.body.result.version).toBe(2);
      expect(await s.state()).toMatchObject({ version: 3, in_step: false });
    } finally {
      await s.charger.close({ force: true });
    }
  });
});
