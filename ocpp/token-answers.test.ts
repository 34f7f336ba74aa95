import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { issueToken } from "../server/charging/authorize-token";

const gw = aLiveGateway();

/** A tenant in `known_tokens` mode with a token the service issued, and a connected charger. */
async function setup(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  await db().tenant.update({
    where: { id: t.tenantId },
    data: { authorizationMode: "known_tokens" },
  });
  const station = await aStationWithPassword(t, "token-answers-pass-1");
  const charger = await aConnectedCharger(gw, station, "token-answers-pass-1", protocol);
  const block = (token: string, method: "PUT" | "DELETE" = "PUT") =>
    call(method, `/v1/tenants/${t.tenantId}/tokens/${encodeURIComponent(token)}/block`, {
      key: t.key,
    });
  const expire = (token: string) =>
    db().authorizationToken.update({
      where: { tenantId_token: { tenantId: t.tenantId, token } },
      data: { expiresAt: new Date(Date.now() - 60_000) },
    });
  return { ...t, station, charger, block, expire };
}

describe("tokens the service issued: Expired and Blocked, not Invalid", () => {
  it("OCPP 1.6 idTagInfo: Authorize and StartTransaction", async () => {
    const s = await setup("ocpp1.6");
    try {
      await issueToken(db(), s.tenantId, "TAG-EXPIRED", "start_command");
      await issueToken(db(), s.tenantId, "TAG-BLOCKED", "start_command");
      await s.expire("TAG-EXPIRED");
      const blocked = await s.block("TAG-BLOCKED");
      expect(blocked.status).toBe(200);
      expect(blocked.body).toMatchObject({ token: "TAG-BLOCKED", blocked: true });
      const authorize = (idTag: string) => s.charger.call("Authorize", { idTag });
      await expect(authorize("TAG-EXPIRED")).resolves.toEqual({ idTagInfo: { status: "Expired" } });
      await expect(authorize("TAG-BLOCKED")).resolves.toEqual({ idTagInfo: { status: "Blocked" } });
      await expect(authorize("TAG-UNKNOWN")).resolves.toEqual({ idTagInfo: { status: "Invalid" } });
      const started = (await s.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "TAG-BLOCKED",
        meterStart: 0,
        timestamp: new Date().toISOString(),
      })) as { idTagInfo: { status: string } };
      expect(started.idTagInfo.status).toBe("Blocked");

      // unblocked: the issued, unexpired token is accepted again
      const unblocked = await s.block("TAG-BLOCKED", "DELETE");
      expect(unblocked.body).toMatchObject({ blocked: false, blocked_at: null });
      await expect(authorize("TAG-BLOCKED")).resolves.toEqual({
        idTagInfo: { status: "Accepted" },
      });
      // a token the service never issued cannot be blocked
      const unknown = await s.block("TAG-UNKNOWN");
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe("not_found");
    } finally {
      await s.charger.close({ force: true });
    }
  });

  it("OCPP 2.0.1 idTokenInfo: Authorize and TransactionEvent; a block holds under accept_all too", async () => {
    const s = await setup("ocpp2.0.1");
    try {
      await issueToken(db(), s.tenantId, "TOKEN-EXPIRED", "start_command");
      await issueToken(db(), s.tenantId, "TOKEN-BLOCKED", "bill");
      await s.expire("TOKEN-EXPIRED");
      expect((await s.block("TOKEN-BLOCKED")).status).toBe(200);
      const authorize = (idToken: string) =>
        s.charger.call("Authorize", { idToken: { idToken, type: "ISO14443" } });
      await expect(authorize("TOKEN-EXPIRED")).resolves.toEqual({
        idTokenInfo: { status: "Expired" },
      });
      await expect(authorize("TOKEN-BLOCKED")).resolves.toEqual({
        idTokenInfo: { status: "Blocked" },
      });
      const event = await s.charger.call("TransactionEvent", {
        eventType: "Started",
        timestamp: new Date().toISOString(),
        triggerReason: "Authorized",
        seqNo: 0,
        transactionInfo: { transactionId: "tx-blocked-1" },
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: "TOKEN-EXPIRED", type: "ISO14443" },
      });
      expect(event).toEqual({ idTokenInfo: { status: "Expired" } });

      await db().tenant.update({
        where: { id: s.tenantId },
        data: { authorizationMode: "accept_all" },
      });
      await expect(authorize("TOKEN-BLOCKED")).resolves.toEqual({
        idTokenInfo: { status: "Blocked" },
      });
      await expect(authorize("TOKEN-EXPIRED")).resolves.toEqual({
        idTokenInfo: { status: "Accepted" },
      });
    } finally {
      await s.charger.close({ force: true });
    }
  });
});
