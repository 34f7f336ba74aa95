import type { RPCClient } from "ocpp-rpc";
import { describe, expect, it } from "vitest";
import { db, type Db } from "../server/db";
import { parseOperationNotice } from "../server/operations/operation-notice";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const PASSWORD = "notices-password-0001";

/** A gateway's own client that counts what it asks of the `operations` table. */
function countingClient() {
  const reads = { operations: 0 };
  const client = db().$extends({
    query: {
      async $allOperations({ model, args, query }) {
        const sql = (args as { sql?: unknown } | undefined)?.sql;
        if (model === "Operation" || (typeof sql === "string" && /\boperations\b/.test(sql)))
          reads.operations += 1;
        return query(args);
      },
    },
  }) as unknown as Db;
  return { client, reads };
}

const counted = countingClient();
const holder = aLiveGateway({ callTimeoutMs: 3000 });
const bystander = aLiveGateway({ db: counted.client, callTimeoutMs: 3000 });

describe("operation notices carry their station", () => {
  it("parses `<station id> <operation id>` and the older bare id; refuses anything else", () => {
    expect(parseOperationNotice("42 op_abc")).toEqual({ stationId: 42, operationId: "op_abc" });
    expect(parseOperationNotice("op_abc")).toEqual({ stationId: null, operationId: "op_abc" });
    for (const bad of ["", "x op_abc", "1 ", "1 op_a extra", " op_abc"])
      expect(parseOperationNotice(bad)).toBeNull();
  });

  it("a gateway that does not hold the station reads nothing for its commands; the one that does sends them in order", async () => {
    const t = await aTenantWithKey();
    const [here, there] = [
      await aStationWithPassword(t, PASSWORD),
      await aStationWithPassword(t, PASSWORD),
    ];
    const resets: string[] = [];
    const reset = (name: string) => (charger: RPCClient) =>
      charger.handle("Reset", ({ params }) => {
        resets.push(`${name} ${(params as { type: string }).type}`);
        return Promise.resolve({ status: "Accepted" });
      });
    const onHolder = await aConnectedCharger(holder, here, PASSWORD, "ocpp1.6", reset("holder"));
    const onBystander = await aConnectedCharger(
      bystander,
      there,
      PASSWORD,
      "ocpp1.6",
      reset("bystander"),
    );
    const online = (stationId: number) =>
      waitUntil(
        async () =>
          (await call("GET", `/v1/tenants/${t.tenantId}/stations/${stationId}`, { key: t.key }))
            .body.online === true,
      );
    await online(here.id);
    await online(there.id);
    const command = (stationId: number, mode: "soft" | "hard") =>
      call("POST", `/v1/tenants/${t.tenantId}/stations/${stationId}/commands`, {
        key: t.key,
        body: { action: "reset", mode },
        idempotencyKey: idem(),
      });

    counted.reads.operations = 0;
    for (const mode of ["soft", "hard", "soft"] as const) {
      const res = await command(here.id, mode);
      expect(res.status).toBe(202);
      expect(res.body.status).toBe("succeeded");
    }
    expect(resets).toEqual(["holder Soft", "holder Hard", "holder Soft"]);
    // each notice reached the bystander too (it LISTENs): before, it read each operation's row
    await new Promise((r) => setTimeout(r, 200));
    expect(counted.reads.operations).toBe(0);

    // and the bystander still sends what is its own, from the notice alone
    const own = await command(there.id, "hard");
    expect(own.body.status).toBe("succeeded");
    expect(resets.at(-1)).toBe("bystander Hard");
    expect(counted.reads.operations).toBeGreaterThan(0);
    await Promise.all([onHolder.close({ force: true }), onBystander.close({ force: true })]);
  });
});
