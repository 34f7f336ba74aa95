import Stripe from "stripe";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { appendEvent } from "../events/append-event";
import { presentEvent } from "../events/present-event";
import { revokeApiKey } from "../keys/revoke-api-key";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey, anotherKey } from "../../testing/builders";
import { claimJob } from "../jobs/claim";
import { runJobsNow } from "../jobs/run-now";
import { deliveryJob, type DeliveryNetwork } from "./deliver-webhook";
import { urlProblem } from "./destination";
import { aReceiver } from "../../testing/webhooks";

// Test mode: deliveries may go to loopback (documented non-production setting).
process.env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS = "true";

const stripe = new Stripe("sk_test_unused", { telemetry: false });
const receivers: Awaited<ReturnType<typeof aReceiver>>[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});
const receiver = async (...args: Parameters<typeof aReceiver>) => {
  const r = await aReceiver(...args);
  receivers.push(r);
  return r;
};
const loopback = { allowPrivate: true, resolve: () => Promise.resolve(["127.0.0.1"]) };
/** Claims the due delivery jobs at `now` (one attempt each) through the job kernel; how many. */
const run = (now?: Date, extra: Partial<DeliveryNetwork> & { limit?: number } = {}) => {
  const { limit, ...network } = extra;
  return runJobsNow({
    db: db(),
    definitions: [deliveryJob(() => ({ ...loopback, ...network }))],
    ...(now ? { now } : {}),
    ...(limit ? { limit } : {}),
  });
};

/** Stops an endpoint's queued retries, so later tests' clocks do not pick them up. */
const quiet = (...ids: string[]) =>
  db().webhookEndpoint.updateMany({ where: { id: { in: ids } }, data: { status: "disabled" } });

async function anEndpoint(url: string, body: Record<string, unknown> = {}) {
  const t = await aTenantWithKey();
  const res = await call("POST", `/v1/tenants/${t.tenantId}/webhooks`, {
    key: t.key,
    body: { url, events: ["webhook.test", "station.connected", "meter.sampled"], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...t, webhook: res.body };
}

describe("webhook endpoints", () => {
  it("creates with a one-time secret and the pinned version; reads never show the secret", async () => {
    const r = await receiver();
    const { tenantId, key, webhook } = await anEndpoint(r.url, {
      description: "ops backend",
      meter: { sample_interval_seconds: 30 },
    });
    expect(webhook).toMatchObject({
      url: r.url,
      status: "active",
      api_version: "2026-10-15",
      stations: null,
      meter: { sample_interval_seconds: 30 },
      disabled_at: null,
    });
    expect(webhook.secret).toMatch(/^whsec_/);
    const read = await call("GET", `/v1/tenants/${tenantId}/webhooks/${webhook.id}`, { key });
    expect(read.body).toEqual({ ...webhook, secret: null });
    const list = await call("GET", `/v1/tenants/${tenantId}/webhooks`, { key });
    expect(list.body.data).toEqual([{ ...webhook, secret: null }]);
    const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(JSON.stringify(row)).not.toContain(webhook.secret); // encrypted at rest
  });

  it("refuses bad input: unknown event types, intervals out of range, an 11th active endpoint, missing read scopes", async () => {
    const t = await aTenantWithKey();
    const post = (body: unknown, key = t.key) =>
      call("POST", `/v1/tenants/${t.tenantId}/webhooks`, { key, body });
    expect((await post({ url: "https://hooks.example.com/x", events: ["nope"] })).status).toBe(422);
    for (const interval of [9, 3601]) {
      expect(
        (
          await post({
            url: "https://hooks.example.com/x",
            events: ["meter.sampled"],
            meter: { sample_interval_seconds: interval },
          })
        ).status,
      ).toBe(422);
    }
    const onlyStations = await anotherKey(t.tenantId, ["webhooks:write", "stations:read"]);
    const billing = await post(
      { url: "https://hooks.example.com/x", events: ["bill.finalized"] },
      onlyStations,
    );
    expect(billing.status).toBe(403);
    expect(billing.body.error.details.missing_scopes).toEqual(["billing:read"]);
    for (let i = 0; i < 10; i++)
      expect(
        (await post({ url: `https://hooks.example.com/${i}`, events: ["station.connected"] }))
          .status,
      ).toBe(201);
    const eleventh = await post({
      url: "https://hooks.example.com/11",
      events: ["station.connected"],
    });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe("webhook_limit_reached");
  });

  it("URL rules: public HTTPS hostnames with a valid port; port 443 in production", () => {
    const rules = {
      production: false,
      allowPrivate: false,
      ownHosts: ["api.charge.example", "ocpp.charge.example"],
    };
    const production = { ...rules, production: true };
    expect(urlProblem("https://hooks.example.com/in", rules)).toBeNull();
    expect(urlProblem("https://hooks.example.com:8443/in", rules)).toBeNull();
    expect(urlProblem("https://hooks.example.com:8443/in", production)).toMatch(/443/);
    expect(urlProblem("https://hooks.example.com/in", production)).toBeNull();
    for (const bad of [
      "http://hooks.example.com/in",
      "https://127.0.0.1/in",
      "https://[::1]/in",
      "https://10.0.0.1/in",
      "https://localhost/in",
      "https://printer.local/in",
      "https://intranet/in",
      "https://api.charge.example/hooks",
      "https://x.ocpp.charge.example/hooks",
      "https://hooks.example.com:0/in",
      "https://user:pw@hooks.example.com/in",
      "not a url",
    ]) {
      expect(urlProblem(bad, rules), bad).not.toBeNull();
    }
    expect(urlProblem("http://127.0.0.1:8080/in", { ...rules, allowPrivate: true })).toBeNull();
    expect(
      urlProblem("http://127.0.0.1:8080/in", { ...production, allowPrivate: true }),
    ).not.toBeNull();
  });

  it("disabling fails pending deliveries and keeps history; deliveries go on after the creating key is revoked", async () => {
    const r = await receiver();
    const { tenantId, key, keyId, webhook } = await anEndpoint(r.url);
    await revokeApiKey({ keyId });
    await db().$transaction((tx) =>
      appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: { n: 1 } }),
    );
    await run();
    expect(r.received).toHaveLength(1);
    const other = await anotherKey(tenantId, ["webhooks:write", "stations:read"]);
    await db().$transaction((tx) =>
      appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: { n: 2 } }),
    );
    const del = await call("DELETE", `/v1/tenants/${tenantId}/webhooks/${webhook.id}`, {
      key: other,
    });
    expect(del.body).toMatchObject({ status: "disabled", disabled_at: expect.any(String) });
    await run();
    expect(r.received).toHaveLength(1);
    const history = await call("GET", `/v1/tenants/${tenantId}/webhooks/${webhook.id}/deliveries`, {
      key: other,
    });
    expect(
      history.body.data.map((d: { status: string; last_error: string | null }) => [
        d.status,
        d.last_error,
      ]),
    ).toEqual([
      ["failed", "EndpointDisabled"],
      ["acknowledged", null],
    ]);
    void key;
  });
});

describe("editing, re-enabling and resending (issue 25)", () => {
  it("PATCH changes url, events, description and stations with creation's rules; the secret stays", async () => {
    const r = await receiver();
    const { tenantId, key, webhook } = await anEndpoint(r.url);
    const station = await aStation(tenantId, key);
    const path = `/v1/tenants/${tenantId}/webhooks/${webhook.id}`;
    const r2 = await receiver();
    const patched = await call("PATCH", path, {
      key,
      body: {
        url: r2.url,
        events: ["station.connected"],
        description: "edited",
        stations: [station.id],
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      url: r2.url,
      events: ["station.connected"],
      description: "edited",
      stations: [station.id],
      secret: null,
    });
    expect((await call("PATCH", path, { key, body: { stations: null } })).body.stations).toBeNull();
    expect((await call("PATCH", path, { key, body: {} })).status).toBe(422);
    expect((await call("PATCH", path, { key, body: { url: "not a url" } })).body.error.code).toBe(
      "webhook_url_invalid",
    );
    expect((await call("PATCH", path, { key, body: { stations: [2147483000] } })).status).toBe(422);
    const narrow = await anotherKey(tenantId, ["webhooks:write", "stations:read"]);
    const billing = await call("PATCH", path, {
      key: narrow,
      body: { events: ["bill.finalized"] },
    });
    expect(billing.status).toBe(403);
    // deliveries still go out signed with the creation's secret, to the new URL
    await call("POST", `${path}/test`, { key });
    await run();
    expect(r.received).toHaveLength(0);
    expect(r2.received).toHaveLength(1);
    expect(() =>
      stripe.webhooks.constructEvent(
        r2.received[0]!.body,
        String(r2.received[0]!.headers["service-signature"]),
        webhook.secret,
      ),
    ).not.toThrow();
  });

  it("a disabled endpoint is re-enabled and delivers again; within the active limit", async () => {
    const r = await receiver();
    const { tenantId, key, webhook } = await anEndpoint(r.url);
    const path = `/v1/tenants/${tenantId}/webhooks/${webhook.id}`;
    await call("DELETE", path, { key });
    const connected = (n: number) =>
      db().$transaction((tx) =>
        appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: { n } }),
      );
    await connected(1);
    await run();
    expect(r.received).toHaveLength(0);
    const enabled = await call("POST", `${path}/enable`, { key });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: "active", disabled_at: null });
    expect((await call("POST", `${path}/enable`, { key })).body.status).toBe("active"); // as it is
    await connected(2);
    await run();
    expect(r.received.map((x) => JSON.parse(x.body).data.n)).toEqual([2]);
    // an 11th active endpoint cannot be had by re-enabling either
    await call("DELETE", path, { key });
    for (let i = 0; i < 10; i++)
      expect(
        (
          await call("POST", `/v1/tenants/${tenantId}/webhooks`, {
            key,
            body: { url: `https://hooks.example.com/${i}`, events: ["webhook.test"] },
          })
        ).status,
      ).toBe(201);
    const refused = await call("POST", `${path}/enable`, { key });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("webhook_limit_reached");
  });

  it("a delivery shows its body; a resend is a new journaled attempt of the same event that arrives", async () => {
    const r = await receiver((n) => (n === 1 ? 500 : 200));
    const { tenantId, key, webhook } = await anEndpoint(r.url);
    const path = `/v1/tenants/${tenantId}/webhooks/${webhook.id}`;
    const test = await call("POST", `${path}/test`, { key });
    await run();
    // the first attempt failed (500); fail the delivery by hand as its last attempt would
    await db().webhookDelivery.update({
      where: { id: test.body.delivery_id },
      data: { status: "failed", completedAt: new Date() },
    });
    const one = await call("GET", `${path}/deliveries/${test.body.delivery_id}`, { key });
    expect(one.status).toBe(200);
    const logged = await db().event.findFirstOrThrow({ where: { id: test.body.event_id } });
    expect(one.body).toMatchObject({
      status: "failed",
      attempts: 1,
      attempt_log: [{ number: 1, http_status: 500, error: "HttpStatus500" }],
      body: presentEvent(logged),
    });
    expect(JSON.stringify(one.body.body)).toBe(r.received[0]!.body);
    const resent = await call("POST", `${path}/deliveries/${test.body.delivery_id}/resend`, {
      key,
    });
    expect(resent.status, JSON.stringify(resent.body)).toBe(202);
    expect(resent.body).toMatchObject({ status: "queued", completed_at: null });
    // resending a delivery already queued changes nothing and queues no second job
    await call("POST", `${path}/deliveries/${test.body.delivery_id}/resend`, { key });
    expect(await run()).toBe(1);
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.headers["service-event-id"]).toBe(test.body.event_id);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    const after = await call("GET", `${path}/deliveries/${test.body.delivery_id}`, { key });
    expect(after.body).toMatchObject({
      status: "acknowledged",
      attempts: 2,
      last_http_status: 200,
      attempt_log: [
        { number: 1, http_status: 500 },
        { number: 2, http_status: 200, error: null },
      ],
    });
    // an acknowledged one can be sent again too; a disabled endpoint's cannot
    expect(
      (await call("POST", `${path}/deliveries/${test.body.delivery_id}/resend`, { key })).status,
    ).toBe(202);
    await run();
    expect(r.received).toHaveLength(3);
    await call("DELETE", path, { key });
    expect(
      (await call("POST", `${path}/deliveries/${test.body.delivery_id}/resend`, { key })).status,
    ).toBe(422);
    expect((await call("GET", `${path}/deliveries/dlv_nope`, { key })).status).toBe(404);
    expect((await call("GET", `${path}/deliveries/nope`, { key })).status).toBe(422);
  });

  it("a resend after the endpoint was disabled and enabled again retires the old waiting retry", async () => {
    const r = await receiver((n) => (n === 1 ? 500 : 200));
    const { tenantId, key, webhook } = await anEndpoint(r.url);
    const path = `/v1/tenants/${tenantId}/webhooks/${webhook.id}`;
    const test = await call("POST", `${path}/test`, { key });
    await run(); // 500: a retry waits a minute
    await call("DELETE", path, { key });
    await call("POST", `${path}/enable`, { key });
    await call("POST", `${path}/deliveries/${test.body.delivery_id}/resend`, { key });
    const far = new Date(Date.now() + 120_000);
    expect(await run(far)).toBe(1); // the resend's job alone
    expect(r.received).toHaveLength(2);
    const original = await db().job.findUniqueOrThrow({
      where: { id: `webhooks.deliver:${test.body.delivery_id}` },
    });
    expect(original).toMatchObject({ status: "succeeded", lastError: "superseded by a resend" });
    expect(
      await db().webhookDelivery.findUniqueOrThrow({ where: { id: test.body.delivery_id } }),
    ).toMatchObject({ status: "acknowledged", attempts: 2 });
  });
});

describe("delivery", () => {
  it("signs every delivery so the official Stripe SDK verifies it; the body is the log's event", async () => {
    const r = await receiver();
    const { tenantId, key, webhook } = await anEndpoint(r.url);
    const test = await call("POST", `/v1/tenants/${tenantId}/webhooks/${webhook.id}/test`, { key });
    expect(test.status).toBe(202);
    await run();
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    const verified = stripe.webhooks.constructEvent(
      got.body,
      String(got.headers["service-signature"]),
      webhook.secret,
    ) as unknown as Record<string, unknown>;
    const logged = await db().event.findFirstOrThrow({ where: { id: test.body.event_id } });
    expect(verified).toEqual(presentEvent(logged));
    expect(got.body).toBe(JSON.stringify(presentEvent(logged))); // compact
    expect(got.headers).toMatchObject({
      "service-event-id": logged.id,
      "service-event-type": "webhook.test",
      "service-version": "2026-10-15",
      "content-type": "application/json",
    });
    expect(verified).toMatchObject({ type: "webhook.test", data: { webhook_id: webhook.id } });
    expect(() =>
      stripe.webhooks.constructEvent(
        got.body,
        String(got.headers["service-signature"]),
        "whsec_wrong",
      ),
    ).toThrow();
    const deliveries = await call(
      "GET",
      `/v1/tenants/${tenantId}/webhooks/${webhook.id}/deliveries`,
      { key },
    );
    expect(deliveries.body.data[0]).toMatchObject({
      status: "acknowledged",
      attempts: 1,
      last_http_status: 200,
      attempt_log: [{ number: 1, http_status: 200, error: null }],
    });
  });

  it("retries after 1 min, 5 min, 30 min, 2 h, then every 12 h, eight attempts, then failed (controllable clock)", async () => {
    const r = await receiver(() => 500);
    const { tenantId, webhook } = await anEndpoint(r.url);
    await db().$transaction((tx) =>
      appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: {} }),
    );
    const delivery = await db().webhookDelivery.findFirstOrThrow({
      where: { endpointId: webhook.id },
    });
    let now = new Date(delivery.nextAttemptAt.getTime());
    const gaps: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      expect(await run(now)).toBe(1);
      const after = await db().webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
      expect(after.attempts).toBe(attempt);
      if (attempt === 8) {
        expect(after).toMatchObject({
          status: "failed",
          lastError: "HttpStatus500",
          lastStatus: 500,
        });
        break;
      }
      const gap = after.nextAttemptAt.getTime() - now.getTime();
      gaps.push(gap / 60_000);
      expect(await run(new Date(after.nextAttemptAt.getTime() - 1000))).toBe(0); // not before it is due
      now = after.nextAttemptAt;
    }
    expect(gaps).toEqual([1, 5, 30, 120, 720, 720, 720]);
    expect(r.received).toHaveLength(8);
    expect(await run(new Date(now.getTime() + 86_400_000))).toBe(0);
  });

  it("a receiver that answers 500 then 200 is acknowledged on the second attempt", async () => {
    const r = await receiver((n) => (n === 1 ? 500 : 200));
    const { tenantId, webhook } = await anEndpoint(r.url);
    await db().$transaction((tx) =>
      appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: {} }),
    );
    await run();
    const first = await db().webhookDelivery.findFirstOrThrow({
      where: { endpointId: webhook.id },
    });
    expect(first).toMatchObject({ status: "queued", attempts: 1, lastStatus: 500 });
    await run(first.nextAttemptAt);
    expect(await db().webhookDelivery.findUniqueOrThrow({ where: { id: first.id } })).toMatchObject(
      { status: "acknowledged", attempts: 2, lastStatus: 200 },
    );
    expect(r.received.map((x) => x.headers["service-event-id"])).toEqual([
      first.eventId,
      first.eventId,
    ]);
  });

  it("a receiver that hangs times out; one that redirects is a failure and the redirect is not followed", async () => {
    const hang = await receiver(() => "hang");
    const target = await receiver();
    const redirect = await receiver(() => ({ redirect: target.url }));
    const a = await anEndpoint(hang.url);
    const b = await anEndpoint(redirect.url);
    for (const t of [a, b])
      await db().$transaction((tx) =>
        appendEvent({
          db: tx,
          tenantId: t.tenantId,
          type: "station.connected",
          resourceId: 1,
          data: {},
        }),
      );
    const started = Date.now();
    await run(undefined, { stepTimeoutMs: 300, attemptTimeoutMs: 600 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: a.webhook.id } }),
    ).toMatchObject({ status: "queued", lastError: "ReadTimeout", lastStatus: null });
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: b.webhook.id } }),
    ).toMatchObject({ status: "queued", lastError: "HttpStatus302", lastStatus: 302 });
    expect(target.received).toEqual([]);
    await quiet(a.webhook.id, b.webhook.id);
  });

  it("reads only the status line and headers, up to 32 KiB", async () => {
    const net = await import("node:net");
    let requests = 0;
    const server = net.createServer((socket) => {
      socket.once("data", (chunk: Buffer) => {
        requests++;
        const kib = chunk.toString().includes("/big") ? 40 : 24; // 24 KiB is over Node's 16 KiB default
        socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${"y".repeat(kib * 1024)}\r\n\r\n`);
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const big = await anEndpoint(`http://127.0.0.1:${port}/big`);
    const fits = await anEndpoint(`http://127.0.0.1:${port}/fits`);
    for (const t of [big, fits])
      await db().$transaction((tx) =>
        appendEvent({
          db: tx,
          tenantId: t.tenantId,
          type: "station.connected",
          resourceId: 1,
          data: {},
        }),
      );
    await run();
    expect(requests).toBe(2);
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: big.webhook.id } }),
    ).toMatchObject({ status: "queued", lastError: "ResponseHeadersTooLarge" });
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: fits.webhook.id } }),
    ).toMatchObject({ status: "acknowledged", lastStatus: 200 });
    await quiet(big.webhook.id);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("in production rules, a hostname resolving to 127.0.0.1 is refused: DestinationRefused, nothing sent", async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    const { tenantId, webhook } = await anEndpoint(r.url);
    await db().webhookEndpoint.update({
      where: { id: webhook.id },
      data: { url: `http://rebinding.example.com:${port}/hooks` },
    });
    await db().$transaction((tx) =>
      appendEvent({ db: tx, tenantId, type: "station.connected", resourceId: 1, data: {} }),
    );
    await run(undefined, {
      allowPrivate: false,
      resolve: () => Promise.resolve(["93.184.216.34", "127.0.0.1"]),
    });
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: webhook.id } }),
    ).toMatchObject({ lastError: "DestinationRefused", attempts: 1 });
    expect(r.received).toEqual([]);
    await quiet(webhook.id);
  });

  it("applies the stations filter and the per-endpoint meter sample interval (Begin and End always)", async () => {
    const r = await receiver();
    const t = await aTenantWithKey();
    const a = await aStation(t.tenantId, t.key);
    const b = await aStation(t.tenantId, t.key);
    const created = await call("POST", `/v1/tenants/${t.tenantId}/webhooks`, {
      key: t.key,
      body: {
        url: r.url,
        events: [
          "station.connected",
          "meter.sampled",
          "display.delivery_changed",
          "station.configuration_changed",
        ],
        stations: [a.id],
        meter: { sample_interval_seconds: 30 },
      },
    });
    expect(created.body.stations).toEqual([a.id]);
    const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 12, 0, s)).toISOString();
    await db().$transaction(async (tx) => {
      for (const type of [
        "station.connected",
        "display.delivery_changed",
        "station.configuration_changed",
      ] as const)
        for (const station of [a, b])
          await appendEvent({
            db: tx,
            tenantId: t.tenantId,
            type,
            resourceId: station.id,
            station: { id: station.id, occurredAt: null },
            data: {},
          });
      for (const [s, context] of [
        [0, "Transaction.Begin"],
        [10, "Sample.Periodic"],
        [20, "Sample.Periodic"],
        [35, "Sample.Periodic"],
        [40, "Sample.Periodic"],
        [45, "Transaction.End"],
      ] as const) {
        await appendEvent({
          db: tx,
          tenantId: t.tenantId,
          type: "meter.sampled",
          resourceId: 77,
          station: { id: a.id, occurredAt: new Date(at(s)) },
          data: { transaction_id: 77, sampled_at: at(s), context },
        });
      }
    });
    await run();
    const got = r.received.map(
      (x) =>
        JSON.parse(x.body) as { type: string; station_id: number; data: { sampled_at?: string } },
    );
    for (const type of [
      "station.connected",
      "display.delivery_changed",
      "station.configuration_changed",
    ])
      expect(got.filter((e) => e.type === type).map((e) => e.station_id)).toEqual([a.id]);
    expect(
      got
        .filter((e) => e.type === "meter.sampled")
        .map((e) => e.data.sampled_at)
        .sort(),
    ).toEqual([at(0), at(35), at(45)]);
  });

  it("at least once across a worker that dies mid-delivery, and two workers never send the same attempt", async () => {
    const r = await receiver();
    const { tenantId, webhook } = await anEndpoint(r.url);
    await db().$transaction(async (tx) => {
      for (let i = 0; i < 12; i++)
        await appendEvent({
          db: tx,
          tenantId,
          type: "station.connected",
          resourceId: i,
          data: { i },
        });
    });
    // A worker claims two deliveries and dies before sending: its lease holds them...
    const now = new Date();
    const delivery = deliveryJob(() => loopback);
    const firstTwo = await db().webhookDelivery.findMany({
      where: { endpointId: webhook.id },
      orderBy: { id: "asc" },
      take: 2,
    });
    const leased = await Promise.all(
      firstTwo.map((d) =>
        claimJob(db(), `${delivery.id}:${d.id}`, {
          runnerId: "dead",
          definitions: [delivery],
          now,
        }),
      ),
    );
    expect(leased.map((job) => job?.leaseUntil)).toEqual([
      new Date(now.getTime() + delivery.leaseMs),
      new Date(now.getTime() + delivery.leaseMs),
    ]);
    // ...while two live workers share the rest without doubling any.
    await Promise.all([
      run(now, { limit: 3 }),
      run(now, { limit: 3 }),
      run(now, { limit: 3 }),
      run(now, { limit: 3 }),
    ]);
    expect(r.received).toHaveLength(10);
    expect(new Set(r.received.map((x) => x.headers["service-event-id"])).size).toBe(10);
    // After the dead worker's lease lapses, its deliveries go out too.
    await run(new Date(now.getTime() + delivery.leaseMs + 1000));
    expect(r.received).toHaveLength(12);
    const ids = new Set(r.received.map((x) => x.headers["service-event-id"]));
    expect(ids.size).toBe(12);
    expect(leased).toHaveLength(2);
  });
});
