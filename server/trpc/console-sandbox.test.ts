/**
 * The console's Sandbox page works through the /v1 sandbox routes run as the signed-in person:
 * a whole session from start to refund over the real gateway and its virtual-charger host, the
 * same records a workspace key reads, and nobody else's workspace.
 */
import { describe, expect, it } from "vitest";
import { idem } from "../../testing/api";
import { consoleAs } from "../../testing/console";
import { aLiveGateway } from "../../testing/live-gateway";
import { aWorkspace, SANDBOX_JOBS, sandbox } from "../../testing/sandbox";
import { aUser } from "../../testing/users";
import { ConsoleApiError } from "./init";

aLiveGateway({ jobs: SANDBOX_JOBS, sandbox: { tickMs: 500 } });

type Console = Awaited<ReturnType<typeof consoleAs>>;

async function until(
  owner: Console,
  id: string,
  check: (s: Awaited<ReturnType<Console["v1"]["getSandboxSession"]>>) => boolean,
  ms = 15_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await owner.v1.getSandboxSession({ params: { session_id: id } });
    if (check(s)) return s;
    if (Date.now() > deadline) throw new Error(`never got there: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConsoleApiError);
  return error as ConsoleApiError;
}

describe("the console's sandbox procedures", () => {
  it("start, advance, stop and refund a session as the signed-in owner, with its events", async () => {
    const w = await aWorkspace();
    const owner = await consoleAs(w.owner.userId);

    const me = await owner.me();
    expect(me.workspace?.sandbox_tenant_id).toBe(w.sandboxTenantId);
    const locations = await owner.v1.listSandboxLocations({ query: { limit: 100 } });
    const station = locations.data[0]!.stations.find((s) => s.protocol === "ocpp2.0.1")!;
    const connector = station.connectors[0]!;
    const tariffs = await owner.v1.listTariffs({ params: { tenant_id: w.sandboxTenantId } });
    expect(tariffs.data.map((t) => t.id)).toContain(locations.data[0]!.default_tariff_id);

    const started = await owner.v1.createSandboxSession({
      body: {
        station_id: station.id,
        connector_id: connector.id,
        tariff_id: locations.data[0]!.default_tariff_id,
      },
      idempotencyKey: idem(),
    });
    expect(started).toMatchObject({
      tenant_id: w.sandboxTenantId,
      station: { id: station.id, name: station.name },
      connector: { id: connector.id },
      tariff: { pricing_summary: expect.stringContaining("0.35") },
    });
    const id = started.id;
    await until(owner, id, (s) => s.status === "charging");

    const advanced = await owner.v1.advanceSandboxSession({
      params: { session_id: id },
      body: { energy_wh: 1_000 },
      idempotencyKey: idem(),
    });
    expect(advanced).toMatchObject({ energy_wh: 1_000, energy_kwh: "1.000", pending_wh: 0 });
    expect(advanced.cost.running_minor).toBeGreaterThanOrEqual(35);

    // The person's console and the workspace key see one and the same session.
    const viaKey = await sandbox(w, "GET", `/v1/sessions/${id}`);
    expect(viaKey.body).toMatchObject({ id, energy_wh: 1_000 });

    await owner.v1.stopSandboxSession({ params: { session_id: id }, idempotencyKey: idem() });
    const settled = await until(owner, id, (s) => s.status === "settled");
    expect(settled.bill.total_minor).toBeGreaterThanOrEqual(35);
    expect(settled.payment).toMatchObject({
      status: "captured",
      captured_minor: settled.bill.total_minor,
    });

    await owner.v1.refundSandboxSession({ params: { session_id: id }, idempotencyKey: idem() });
    const refunded = await until(owner, id, (s) => s.status === "refunded");
    expect(refunded.payment?.refunded_minor).toBe(settled.bill.total_minor);

    const events = await owner.v1.listWorkspaceEvents({ query: { resource_id: id } });
    expect(events.data.map((e) => e.data.status)).toEqual([
      "starting",
      "charging",
      "stopping",
      "settled",
      "refunded",
    ]);
    const listed = await owner.v1.listSandboxSessions({ query: { limit: 10 } });
    expect(listed.data.map((s) => s.id)).toContain(id);
  });

  it("keep each person to their own workspace, and refuse a refund before the stop", async () => {
    const w = await aWorkspace();
    const owner = await consoleAs(w.owner.userId);
    const other = await consoleAs((await aWorkspace()).owner.userId);
    const nobody = await consoleAs((await aUser()).userId);

    const started = await owner.v1.createSandboxSession({ body: {}, idempotencyKey: idem() });
    const early = await refusal(
      owner.v1.refundSandboxSession({
        params: { session_id: started.id },
        idempotencyKey: idem(),
      }),
    );
    expect(early.body.code).toBe("session_not_settled");

    const hidden = await refusal(
      other.v1.getSandboxSession({ params: { session_id: started.id } }),
    );
    expect(hidden.code).toBe("NOT_FOUND");
    const noWorkspace = await refusal(nobody.v1.listSandboxLocations({ query: {} }));
    expect(noWorkspace.body.code).toBe("no_grant");
  });
});
