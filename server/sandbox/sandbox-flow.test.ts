import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { idem } from "../../testing/api";
import { aLiveGateway } from "../../testing/live-gateway";
import { aSandboxChargerStandIn } from "../../testing/sandbox-charger-stand-in";
import {
  aWorkspace,
  SANDBOX_JOBS,
  sandbox,
  sessionUntil,
  startSession,
} from "../../testing/sandbox";

const gw = aLiveGateway({ jobs: SANDBOX_JOBS });
let host: Awaited<ReturnType<typeof aSandboxChargerStandIn>>;
beforeAll(async () => {
  host = await aSandboxChargerStandIn({ url: gw.url });
});
afterAll(async () => {
  await host?.close();
});

describe("a sandbox session from start to refund", () => {
  it("starts, advances, stops, settles with a final bill and a captured payment, and refunds", async () => {
    const w = await aWorkspace();
    const started = await startSession(w);
    expect(started.status).toBe(201);
    const id = started.body.id as string;
    const charging = await sessionUntil(w, id, (s) => s.status === "charging");
    expect(charging).toMatchObject({
      station: { protocol: "ocpp2.0.1", online: true },
      payment: { service: "simulator", status: "authorized" },
      bill: { status: "charging" },
      start_operation: { status: "succeeded" },
    });
    const advanced = await sandbox(w, "POST", `/v1/sandbox/sessions/${id}/advance`, {
      body: { energy_wh: 10_000, soc_percent: 40 },
      idempotencyKey: idem(),
    });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ energy_wh: 10_000, target_wh: 10_000, pending_wh: 0 });
    expect(advanced.body.elapsed_seconds).toBe(Math.ceil((10_000 * 3600) / 22_000));
    const stopped = await sandbox(w, "POST", `/v1/sessions/${id}/stop`, { idempotencyKey: idem() });
    expect(stopped.status).toBe(200);
    const settled = await sessionUntil(w, id, (s) => s.status === "settled");
    expect(settled.bill).toMatchObject({ status: "final" });
    expect(settled.bill.total_minor).toBeGreaterThan(350);
    expect(settled.bill.cost_breakdown).not.toBeNull();
    expect(settled.payment).toMatchObject({
      status: "captured",
      captured_minor: settled.bill.total_minor,
    });
    const refunded = await sandbox(w, "POST", `/v1/sessions/${id}/refund`, {
      idempotencyKey: idem(),
    });
    expect(refunded.status).toBe(200);
    const done = await sessionUntil(w, id, (s) => s.status === "refunded");
    expect(done.payment).toMatchObject({
      status: "refunded",
      refunded_minor: settled.bill.total_minor,
    });
    const events = await sandbox(w, "GET", "/v1/events?type=sandbox_session.status_changed");
    expect(events.body.data.map((e: { data: { status: string } }) => e.data.status)).toEqual([
      "starting",
      "charging",
      "stopping",
      "settled",
      "refunded",
    ]);
    const messages = await db().chargerMessage.findMany({
      where: { stationId: charging.station.id },
      orderBy: { createdAt: "asc" },
    });
    console.log(messages.map((m) => m.action));
  });
});
