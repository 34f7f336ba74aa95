import { describe, expect, it } from "vitest";
import { call } from "../../testing/api";
import { aLocation, aLocationBody, aTenantWithKey } from "../../testing/builders";

describe("locations", () => {
  it("reads a location as created, and only in its own tenant", async () => {
    const mine = await aTenantWithKey();
    const theirs = await aTenantWithKey();
    const created = await aLocation(mine.tenantId, mine.key, { external_reference: "depot-7" });

    const read = await call("GET", `/v1/tenants/${mine.tenantId}/locations/${created.id}`, {
      key: mine.key,
    });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      ...aLocationBody({ external_reference: "depot-7" }),
      id: created.id,
      tenant_id: mine.tenantId,
    });

    const elsewhere = await call("GET", `/v1/tenants/${theirs.tenantId}/locations/${created.id}`, {
      key: theirs.key,
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe("not_found");
  });
});
