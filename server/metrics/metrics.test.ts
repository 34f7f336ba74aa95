import { z } from "zod";
import { describe, expect, it, vi } from "vitest";
import { GET } from "@/app/metrics/route";
import { db } from "../db";
import { allRoutes } from "../http/routes";
import { defineJob } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { runJobsNow } from "../jobs/run-now";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { metricsAnswer } from "../http/metrics-endpoint";
import { parseMetrics, sumOf } from "../../testing/read-metrics";

const TOKEN = vi.hoisted(() => {
  const token = "metrics-token-for-the-web-test-000000001";
  process.env.METRICS_TOKEN = token; // before anything reads the configuration
  return token;
});

/** The web process's /metrics route, called as Next.js calls it. */
async function scrape() {
  const res = await GET(
    new Request("http://localhost:3000/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
  );
  expect(res.status).toBe(200);
  return parseMetrics(await res.text());
}

const template = (operationId: string) =>
  allRoutes.find((r) => r.operationId === operationId)!.path;

describe("the web process's /metrics", () => {
  it("is refused without the token, and absent when no token is configured", async () => {
    const none = await GET(new Request("http://localhost:3000/metrics"));
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await none.json()).toMatchObject({ error: { code: "unauthenticated" } });
    const basic = await GET(
      new Request("http://localhost:3000/metrics", {
        headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
      }),
    );
    expect(basic.status).toBe(401);
    const unset = await metricsAnswer(`Bearer ${TOKEN}`, null);
    expect(unset.status).toBe(404);
    expect(JSON.parse(unset.body)).toMatchObject({ error: { code: "route_not_found" } });
  });

  it("counts /v1 requests by route template and status, never by raw path", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key);
    const before = await scrape();
    const found = await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, {
      key: t.key,
    });
    expect(found.status).toBe(200);
    const missing = await call("GET", `/v1/tenants/${t.tenantId}/stations/999999`, { key: t.key });
    expect(missing.status).toBe(404);
    expect((await call("GET", "/v1/no-such-thing")).status).toBe(404);
    const after = await scrape();

    const name = "chargecloud_v1_request_duration_seconds_count";
    const delta = (labels: Record<string, string>) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    const getStation = { method: "GET", route: template("getStation") };
    expect(getStation.route).toBe("/v1/tenants/{tenant_id}/stations/{station_id}");
    expect(delta({ ...getStation, status: "200" })).toBe(1);
    expect(delta({ ...getStation, status: "404" })).toBe(1);
    expect(delta({ method: "GET", route: "unmatched", status: "404" })).toBe(1);
    // Bounded labels: every route is a template of the table (or `unmatched`).
    const known = new Set([...allRoutes.map((r) => r.path), "unmatched"]);
    const routes = after.filter((s) => s.name === name).map((s) => s.labels.route!);
    expect(routes.filter((route) => !known.has(route))).toEqual([]);
  });

  it("counts job runs by name and outcome, with their duration", async () => {
    const ok = defineJob({
      id: "metrics.ok",
      payload: z.object({}),
      handler: () => new Promise((resolve) => setTimeout(resolve, 20)),
    });
    const flaky = defineJob({
      id: "metrics.flaky",
      payload: z.object({}),
      retry: { maxAttempts: 2, backoff: () => 0 },
      handler: () => Promise.reject(new Error("not yet")),
    });
    const before = await scrape();
    await enqueue(db(), ok, {});
    await enqueue(db(), flaky, {});
    expect(await runJobsNow({ db: db(), definitions: [ok, flaky] })).toBe(2);
    expect(await runJobsNow({ db: db(), definitions: [flaky] })).toBe(1);
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      sumOf(after, "chargecloud_job_duration_seconds_count", labels) -
      sumOf(before, "chargecloud_job_duration_seconds_count", labels);
    expect(delta({ name: "metrics.ok", outcome: "succeeded" })).toBe(1);
    expect(delta({ name: "metrics.flaky", outcome: "retry" })).toBe(1);
    expect(delta({ name: "metrics.flaky", outcome: "failed" })).toBe(1);
    const took =
      sumOf(after, "chargecloud_job_duration_seconds_sum", { name: "metrics.ok" }) -
      sumOf(before, "chargecloud_job_duration_seconds_sum", { name: "metrics.ok" });
    expect(took).toBeGreaterThanOrEqual(0.015);
  });

  it("reports the webhook delivery queue's depth and age from the jobs table, and the pool", async () => {
    await db().$executeRaw`
      INSERT INTO jobs (id, name, queue, payload, status, attempt, run_at) VALUES
        ('metrics-web:1', 'webhooks.deliver', 'default', '{}', 'queued', 0, now() - interval '20 seconds'),
        ('metrics-web:2', 'webhooks.deliver', 'default', '{}', 'queued', 0, now() - interval '5 seconds'),
        ('metrics-web:3', 'webhooks.deliver', 'default', '{}', 'queued', 0, now() + interval '1 hour'),
        ('metrics-web:4', 'metrics.other', 'default', '{}', 'queued', 0, now() - interval '20 seconds')`;
    // Answers are cached for 2 s: the first scrape after the insert may still be the old one.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const samples = await scrape();
    const webhooks = { queue: "default", name: "webhooks.deliver" };
    expect(sumOf(samples, "chargecloud_jobs_queued", webhooks)).toBe(2); // due ones only
    const age = sumOf(samples, "chargecloud_jobs_queued_oldest_age_seconds", webhooks);
    expect(age).toBeGreaterThanOrEqual(20);
    expect(age).toBeLessThan(60);
    // The web process watches webhook deliveries only.
    expect(samples.filter((s) => s.labels.name === "metrics.other")).toEqual([]);
    expect(sumOf(samples, "chargecloud_db_pool_max")).toBe(10);
  });
});
