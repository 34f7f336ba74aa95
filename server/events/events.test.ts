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
});
