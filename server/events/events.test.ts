import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { appendEvent } from "./append-event";

describe("the event log", () => {
  it("a reader paging with next_cursor never misses an event that commits later, under concurrent writers", async () => {
    const { tenantId, key, keyId } = await aTenantWithKey();
    await db().apiKey.update({ where: { id: keyId }, data: { rateLimitPerMinute: 1200 } });
    const WRITERS = 8;
    const PER_WRITER = 15;
    const seen: number[] = [];
    let writing = true;
    const reader = (async () => {
      let after = 0;
      for (;;) {
        const done = !writing;
        const page = await call("GET", `/v1/tenants/${tenantId}/events?after=${after}&limit=7`, {
          key,
        });
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((e: { sequence: number }) => e.sequence));
        after = page.body.next_cursor;
        if (done && page.body.data.length === 0) break;
        if (page.body.data.length === 0) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          await db().$transaction(async (tx) => {
            await appendEvent({
              db: tx,
              tenantId,
              type: "webhook.test",
              resourceId: null,
              data: { writer: w, i },
            });
            // hold the transaction open a little, so commits interleave with the reader
            await new Promise((r) => setTimeout(r, Math.random() * 8));
          });
        }
      }),
    );
    writing = false;
    await reader;
    expect(seen).toEqual(Array.from({ length: WRITERS * PER_WRITER }, (_, i) => i + 1));
  });

  it("filters by type and station, and hides billing events from keys without billing:read", async () => {
    const { tenantId, key } = await aTenantWithKey({ scopes: ["stations:read"] });
    const full = await aTenantWithKey();
    await db().$transaction(async (tx) => {
      await appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: {} });
      await appendEvent({ db: tx, tenantId, type: "bill.finalized", resourceId: 2, data: {} });
      await appendEvent({ db: tx, tenantId, type: "webhook.test", resourceId: null, data: {} });
    });
    const all = await call("GET", `/v1/tenants/${tenantId}/events`, { key });
    expect(all.body.data.map((e: { type: string }) => e.type)).toEqual([
      "station.connected",
      "webhook.test",
    ]);
    const typed = await call(
      "GET",
      `/v1/tenants/${tenantId}/events?type=webhook.test,bill.finalized`,
      { key },
    );
    expect(typed.body.data.map((e: { type: string }) => e.type)).toEqual(["webhook.test"]);
    const other = await call("GET", `/v1/tenants/${tenantId}/events`, { key: full.key });
    expect(other.status).toBe(404);
    const bad = await call("GET", `/v1/tenants/${tenantId}/events?type=DROP%20TABLE`, { key });
    expect(bad.status).toBe(422);
  });

  it("keeps one resource's events with resource_id, alone or with type", async () => {
    const { tenantId, key } = await aTenantWithKey();
    await db().$transaction(async (tx) => {
      await appendEvent({
        db: tx,
        tenantId,
        type: "payment.authorized",
        resourceId: "pay_a",
        data: {},
      });
      await appendEvent({
        db: tx,
        tenantId,
        type: "payment.authorized",
        resourceId: "pay_b",
        data: {},
      });
      await appendEvent({
        db: tx,
        tenantId,
        type: "bill.finalized",
        resourceId: "pay_a",
        data: {},
      });
      await appendEvent({
        db: tx,
        tenantId,
        type: "payment.captured",
        resourceId: "pay_a",
        data: {},
      });
    });
    const ofA = await call("GET", `/v1/tenants/${tenantId}/events?resource_id=pay_a`, { key });
    expect(ofA.body.data.map((e: { type: string }) => e.type)).toEqual([
      "payment.authorized",
      "bill.finalized",
      "payment.captured",
    ]);
    const paymentsOfA = await call(
      "GET",
      `/v1/tenants/${tenantId}/events?resource_id=pay_a&type=payment.authorized,payment.captured`,
      { key },
    );
    expect(paymentsOfA.body.data.map((e: { resource_id: string }) => e.resource_id)).toEqual([
      "pay_a",
      "pay_a",
    ]);
    const bad = await call("GET", `/v1/tenants/${tenantId}/events?resource_id=a%20b`, { key });
    expect(bad.status).toBe(422);
  });

  it("reads newest first with order=desc, paging to older events, and follows new ones with asc", async () => {
    const { tenantId, key } = await aTenantWithKey();
    for (let i = 1; i <= 5; i++)
      await db().$transaction((tx) =>
        appendEvent({ db: tx, tenantId, type: "webhook.test", resourceId: null, data: { i } }),
      );
    const seqs = (page: { body: { data: { sequence: number }[] } }) =>
      page.body.data.map((e) => e.sequence);
    const first = await call("GET", `/v1/tenants/${tenantId}/events?order=desc&limit=2`, { key });
    expect(seqs(first)).toEqual([5, 4]);
    expect(first.body).toMatchObject({ next_cursor: 4, has_more: true });
    const second = await call(
      "GET",
      `/v1/tenants/${tenantId}/events?order=desc&limit=2&after=${first.body.next_cursor}`,
      { key },
    );
    expect(seqs(second)).toEqual([3, 2]);
    const last = await call("GET", `/v1/tenants/${tenantId}/events?order=desc&limit=2&after=2`, {
      key,
    });
    expect(seqs(last)).toEqual([1]);
    expect(last.body.has_more).toBe(false);
    // the live tail: what arrives after the newest shown
    await db().$transaction((tx) =>
      appendEvent({ db: tx, tenantId, type: "webhook.test", resourceId: null, data: { i: 6 } }),
    );
    const tail = await call("GET", `/v1/tenants/${tenantId}/events?order=asc&after=5`, { key });
    expect(seqs(tail)).toEqual([6]);
    const bad = await call("GET", `/v1/tenants/${tenantId}/events?order=sideways`, { key });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBeTruthy();
  });

  it("filters by a type family (payment.*) and by a created_at range", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const append = (type: string) =>
      db().$transaction((tx) =>
        appendEvent({ db: tx, tenantId, type, resourceId: null, data: {} }),
      );
    const pause = () => new Promise((r) => setTimeout(r, 30));
    await append("payment.authorized");
    await pause();
    const from = new Date();
    await pause();
    await append("station.connected");
    await append("payment.captured");
    await pause();
    const before = new Date();
    await pause();
    await append("payment_other.x");
    const types = (page: { body: { data: { type: string }[] } }) =>
      page.body.data.map((e) => e.type);
    const family = await call("GET", `/v1/tenants/${tenantId}/events?type=payment.*`, { key });
    expect(types(family)).toEqual(["payment.authorized", "payment.captured"]);
    const mixed = await call(
      "GET",
      `/v1/tenants/${tenantId}/events?type=station.connected,payment.*&order=desc`,
      { key },
    );
    expect(types(mixed)).toEqual(["payment.captured", "station.connected", "payment.authorized"]);
    const ranged = await call(
      "GET",
      `/v1/tenants/${tenantId}/events?created_from=${from.toISOString()}&created_before=${before.toISOString()}`,
      { key },
    );
    expect(types(ranged)).toEqual(["station.connected", "payment.captured"]);
    const badDate = await call("GET", `/v1/tenants/${tenantId}/events?created_from=yesterday`, {
      key,
    });
    expect(badDate.status).toBe(422);
    const badFamily = await call("GET", `/v1/tenants/${tenantId}/events?type=*`, { key });
    expect(badFamily.status).toBe(422);
  });

  it("hides billing families from keys without billing:read", async () => {
    const { tenantId, key } = await aTenantWithKey({ scopes: ["stations:read"] });
    await db().$transaction(async (tx) => {
      await appendEvent({ db: tx, tenantId, type: "payment.captured", resourceId: null, data: {} });
      await appendEvent({ db: tx, tenantId, type: "bill.finalized", resourceId: null, data: {} });
    });
    const hidden = await call("GET", `/v1/tenants/${tenantId}/events?type=payment.*,bill.*`, {
      key,
    });
    expect(hidden.body.data).toEqual([]);
  });

  it("shows order, created_from, created_before and type families in the OpenAPI document", async () => {
    const doc = (await call("GET", "/v1/openapi.json")).body;
    const params = (
      doc.paths["/v1/tenants/{tenant_id}/events"].get.parameters as { name: string }[]
    ).map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(["order", "created_from", "created_before"]));
    expect(JSON.stringify(doc.paths["/v1/tenants/{tenant_id}/events"])).toContain("payment.*");
  });
});
