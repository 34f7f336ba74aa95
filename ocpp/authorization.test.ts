import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

describe("Authorize and the tenant's authorization mode", () => {
  it("accept_all accepts any token; known_tokens only tokens the service issued", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, "authorize-password-1");
    const charger = await aConnectedCharger(
      gw,
      station,
      "authorize-password-1",
      "ocpp1.6",
      (charger) => {
        charger.handle("RemoteStartTransaction", () => Promise.resolve({ status: "Accepted" }));
      },
    );
    try {
      await expect(charger.call("Authorize", { idTag: "ANY-TAG" })).resolves.toEqual({
        idTagInfo: { status: "Accepted" },
      });
      await db().tenant.update({
        where: { id: t.tenantId },
        data: { authorizationMode: "known_tokens" },
      });
      await expect(charger.call("Authorize", { idTag: "ANY-TAG" })).resolves.toEqual({
        idTagInfo: { status: "Invalid" },
      });
      await waitUntil(
        async () =>
          (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key }))
            .body.online,
      );
      const start = await call(
        "POST",
        `/v1/tenants/${t.tenantId}/stations/${station.id}/commands`,
        {
          key: t.key,
          body: { action: "start", connector_id: station.connectors[0]!.id, token: "ISSUED-1" },
          idempotencyKey: idem(),
        },
      );
      expect(start.body.status).toBe("succeeded");
      await expect(charger.call("Authorize", { idTag: "ISSUED-1" })).resolves.toEqual({
        idTagInfo: { status: "Accepted" },
      });
    } finally {
      await charger.close({ force: true });
    }
  });
});
