import { describe, expect, it } from "vitest";
import { call, idem } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { db } from "../db";

// The production switch, read once per process as every setting is (server/env.ts).
process.env.DISPLAYS_DISABLED = "true";

describe("displays switched off (DISPLAYS_DISABLED=true)", () => {
  it("refuses set and delete with 409 displays_disabled; reads still work", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const path = `/v1/tenants/${t.tenantId}/stations/${station.id}/evses/1/display`;
    const set = await call("PUT", path, {
      key: t.key,
      body: { url: "https://pay.example.com/off" },
      idempotencyKey: idem(),
    });
    expect(set.status).toBe(409);
    expect(set.body.error).toMatchObject({ code: "displays_disabled", details: {} });
    expect(await db().display.count()).toBe(0);
    const deleted = await call("DELETE", path, { key: t.key });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.code).toBe("displays_disabled");
    const read = await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, {
      key: t.key,
    });
    expect(read.status).toBe(200);
    expect(read.body.display).toMatchObject({ evses: [] });
    expect((await call("GET", path, { key: t.key })).status).toBe(404);
  });
});
