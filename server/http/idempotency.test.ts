import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { aLocationBody, aTenantWithKey, anotherKey } from "../../testing/builders";

describe("Idempotency-Key", () => {
  it("is required where declared, and must be 8 to 128 printable characters", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const path = `/v1/tenants/${tenantId}/locations`;
    const missing = await call("POST", path, { key, body: aLocationBody() });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("idempotency_key_missing");
    for (const bad of ["short", "x".repeat(129), "has space in it"]) {
      const res = await call("POST", path, { key, body: aLocationBody(), idempotencyKey: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe("idempotency_key_invalid");
    }
    expect(
      (await call("POST", path, { key, body: aLocationBody(), idempotencyKey: "x".repeat(128) }))
        .status,
    ).toBe(201);
    expect(await db().location.count({ where: { tenantId } })).toBe(1);
  });

  it("replays the original status and body for the same key and body", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const k = idem();
    const first = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody(),
      idempotencyKey: k,
    });
    // Same body with keys in another order is the same request.
    const { name, ...rest } = aLocationBody();
    const again = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: { ...rest, name },
      idempotencyKey: k,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    // the same text, keys in the same order (a jsonb column would store them reordered)
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await db().location.count({ where: { tenantId } })).toBe(1);
  });

  it("refuses the same key with another body: 422 idempotency_key_reused", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const k = idem();
    await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody(),
      idempotencyKey: k,
    });
    const other = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody({ name: "Another" }),
      idempotencyKey: k,
    });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe("idempotency_key_reused");
    expect(await db().location.count({ where: { tenantId } })).toBe(1);
  });

  it("scopes keys to the API key: another key may use the same Idempotency-Key", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const second = await anotherKey(tenantId, ["stations:write"]);
    const k = idem();
    const a = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody(),
      idempotencyKey: k,
    });
    const b = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key: second,
      body: aLocationBody(),
      idempotencyKey: k,
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it("creates exactly one resource under 20 concurrent identical requests", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const k = idem();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", `/v1/tenants/${tenantId}/locations`, {
          key,
          body: aLocationBody(),
          idempotencyKey: k,
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await db().location.count({ where: { tenantId } })).toBe(1);
  });

  it("does not store error answers: a retry after a conflict runs again", async () => {
    const { tenantId, key } = await aTenantWithKey();
    await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody({ external_reference: "depot-1" }),
      idempotencyKey: idem(),
    });
    const k = idem();
    const body = aLocationBody({ external_reference: "depot-2" });
    await db().location.updateMany({ where: { tenantId }, data: { externalReference: "depot-2" } });
    const conflict = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body,
      idempotencyKey: k,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("external_reference_taken");
    await db().location.updateMany({ where: { tenantId }, data: { externalReference: "depot-1" } });
    const retry = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body,
      idempotencyKey: k,
    });
    expect(retry.status).toBe(201);
  });
});
