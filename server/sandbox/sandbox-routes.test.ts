/**
 * The sandbox's routes, scopes and boundaries without a virtual charger (no gateway): provisioning,
 * locations, branding, /v1/me, who reaches what (workspace keys, project keys, people, each
 * direction), sessions that cannot start, validation, and the sandbox tenant as no project.
 */
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { verifyPassword } from "../lib/passwords";
import { open } from "../lib/secret-box";
import { renderToStaticMarkup } from "react-dom/server";
import PaymentReturnPage from "../../app/pay/return/page";
import { simulatorCheckoutView } from "../payments/simulator-page";
import { call, idem } from "../../testing/api";
import { aLocationBody, aStation, aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";
import { aWorkspace, sandbox, startSession, type Workspace } from "../../testing/sandbox";
import { SANDBOX_STATIONS } from "./provision";

async function sandboxStations(w: Workspace) {
  const res = await sandbox(w, "GET", "/v1/locations");
  expect(res.status).toBe(200);
  return res.body.data[0].stations as {
    id: number;
    name: string;
    protocol: string;
    connectors: { id: number; open_session_id: string | null }[];
  }[];
}

describe("provisioning", () => {
  it("concurrent first uses make one sandbox: a location, three sbx- stations, twelve connectors, a tariff", async () => {
    const owner = await aUser();
    const ws = await call("POST", "/v1/workspace", { key: owner.token, body: { name: "W" } });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call("GET", "/v1/locations", { key: owner.token })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const tenants = await db().tenant.findMany({ where: { teamId: ws.body.id, kind: "sandbox" } });
    expect(tenants).toHaveLength(1);
    const location = answers[0]!.body.data[0];
    expect(answers[0]!.body).toMatchObject({ next_cursor: null, has_more: false });
    expect(location).toMatchObject({
      tenant_id: tenants[0]!.id,
      name: "Sandbox depot",
      default_tariff_id: expect.any(Number),
    });
    expect(location.stations.map((s: { name: string }) => s.name)).toEqual(
      SANDBOX_STATIONS.map((s) => `sbx-${ws.body.id}-${s.suffix}`),
    );
    expect(location.stations.map((s: { connectors: unknown[] }) => s.connectors.length)).toEqual([
      8, 2, 2,
    ]);
    expect(location.stations[2]).toMatchObject({ protocol: "ocpp1.6", nominal_power_kw: 11 });
    expect(await db().station.count({ where: { tenantId: tenants[0]!.id } })).toBe(3);
    expect(await db().tariff.count({ where: { tenantId: tenants[0]!.id } })).toBe(1);
    // each station's password is stored as production passwords are, and sealed for its charger
    for (const charger of await db().sandboxCharger.findMany({
      where: { tenantId: tenants[0]!.id },
    })) {
      const station = await db().station.findUniqueOrThrow({ where: { id: charger.stationId } });
      const password = open(charger.passwordSealed);
      expect(password).toHaveLength(32);
      expect(await verifyPassword(password, station.passwordHash!)).toBe(true);
      expect(station.passwordVerifier).toMatch(/^v1\./);
    }
  });

  it("reserves the sbx- station names and keeps sandbox stations' passwords and rows", async () => {
    const project = await aTenantWithKey();
    const location = await call("POST", `/v1/tenants/${project.tenantId}/locations`, {
      key: project.key,
      body: aLocationBody(),
      idempotencyKey: idem(),
    });
    const taken = await call("POST", `/v1/tenants/${project.tenantId}/stations`, {
      key: project.key,
      body: { name: "sbx-1-ac1", location_id: location.body.id, connector_count: 1 },
      idempotencyKey: idem(),
    });
    expect(taken.status).toBe(422);
    const w = await aWorkspace();
    const [station] = await sandboxStations(w);
    const t = `/v1/tenants/${w.sandboxTenantId}/stations/${station!.id}`;
    const deleted = await sandbox(w, "DELETE", t, { idempotencyKey: idem() });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.code).toBe("sandbox_station_managed");
    const password = await sandbox(w, "PUT", `${t}/credentials`, {
      body: { password: "another-password-123" },
      idempotencyKey: idem(),
    });
    expect(password.status).toBe(409);
    expect(password.body.error.code).toBe("sandbox_station_managed");
  });
});

describe("who reaches what", () => {
  it("workspace scopes gate the workspace routes; project keys and people without a workspace are refused", async () => {
    const w = await aWorkspace();
    const reader = await call("POST", "/v1/api-keys", {
      key: w.owner.token,
      body: { scopes: ["sandbox:read"] },
    });
    const writer = await call("POST", "/v1/api-keys", {
      key: w.owner.token,
      body: { scopes: ["sandbox:write"] },
    });
    const r = { key: reader.body.secret as string };
    const wr = { key: writer.body.secret as string };
    for (const path of ["/v1/locations", "/v1/sessions", "/v1/events"])
      expect((await sandbox(r, "GET", path)).status, path).toBe(200);
    const refused = await sandbox(r, "POST", "/v1/sessions", { body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: "insufficient_scope",
      details: { missing_scopes: ["sandbox:write"] },
    });
    const brand = await sandbox(r, "PUT", "/v1/branding", { body: { display_name: "X" } });
    expect(brand.status).toBe(403);
    const list = await sandbox(wr, "GET", "/v1/sessions");
    expect(list.status).toBe(403);
    expect(list.body.error.details.missing_scopes).toEqual(["sandbox:read"]);
    expect((await sandbox(wr, "PUT", "/v1/branding", { body: { display_name: "X" } })).status).toBe(
      200,
    );

    const project = await aTenantWithKey();
    for (const [method, path] of [
      ["GET", "/v1/locations"],
      ["GET", "/v1/sessions"],
      ["POST", "/v1/sessions"],
      ["GET", "/v1/sessions/sbs_abc"],
      ["POST", "/v1/sessions/sbs_abc/sync"],
      ["POST", "/v1/sandbox/sessions/sbs_abc/advance"],
      ["POST", "/v1/sessions/sbs_abc/stop"],
      ["POST", "/v1/sessions/sbs_abc/refund"],
      ["PUT", "/v1/branding"],
    ] as const) {
      const res = await call(method, path, {
        key: project.key,
        body: method === "GET" ? undefined : {},
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code, `${method} ${path}`).toBe("insufficient_scope");
    }
    const stranger = await aUser();
    const none = await call("GET", "/v1/sessions", { key: stranger.token });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe("no_grant");
  });

  it("workspace keys reach their sandbox tenant's routes with the project scopes their sandbox scopes map to", async () => {
    const w = await aWorkspace(["sandbox:read"]);
    const writer = await call("POST", "/v1/api-keys", {
      key: w.owner.token,
      body: { scopes: ["sandbox:write"] },
    });
    const t = `/v1/tenants/${w.sandboxTenantId}`;
    expect((await sandbox(w, "GET", `${t}/stations`)).body.data).toHaveLength(3);
    expect((await sandbox(w, "GET", `${t}/tariffs`)).status).toBe(200);
    expect((await sandbox(w, "GET", `${t}/webhooks`)).status).toBe(200);
    const cannot = await sandbox(w, "POST", `${t}/locations`, {
      body: aLocationBody(),
      idempotencyKey: idem(),
    });
    expect(cannot.status).toBe(403);
    expect(cannot.body.error.details.missing_scopes).toEqual(["stations:write"]);
    const can = await call("POST", `${t}/locations`, {
      key: writer.body.secret,
      body: aLocationBody(),
      idempotencyKey: idem(),
    });
    expect(can.status).toBe(201);
    // never stations:admin or settlement:write
    const settle = await call("POST", `${t}/charging-sessions`, {
      key: writer.body.secret,
      body: {},
      idempotencyKey: idem(),
    });
    expect(settle.status).toBe(403);
    expect(settle.body.error.details.missing_scopes).toContain("settlement:write");
    // the owner, signed in, reaches the sandbox tenant with the owner's scopes; a developer too
    expect((await call("GET", `${t}/stations`, { key: w.owner.token })).status).toBe(200);
    const developer = await aMember(w.teamId, "developer");
    expect((await call("GET", `${t}/stations`, { key: developer.token })).status).toBe(200);
  });

  it("isolation: between two workspaces, and between sandbox and production keys, each direction", async () => {
    const a = await aWorkspace();
    const b = await aWorkspace();
    const session = await startSession(b);
    expect(session.status).toBe(201);
    const id = session.body.id as string;
    for (const [method, path] of [
      ["GET", `/v1/sessions/${id}`],
      ["POST", `/v1/sessions/${id}/sync`],
      ["POST", `/v1/sessions/${id}/stop`],
      ["POST", `/v1/sessions/${id}/refund`],
    ] as const) {
      const res = await sandbox(a, method, path);
      expect(res.status, path).toBe(404);
    }
    const advance = await sandbox(a, "POST", `/v1/sandbox/sessions/${id}/advance`, {
      body: { energy_wh: 10 },
    });
    expect(advance.status).toBe(404);
    expect((await sandbox(a, "GET", "/v1/sessions")).body.data).toEqual([]);
    const other = await sandbox(a, "GET", `/v1/tenants/${b.sandboxTenantId}/stations`);
    expect(other.status).toBe(404);
    const otherBill = await sandbox(
      a,
      "GET",
      `/v1/tenants/${b.sandboxTenantId}/bills/${session.body.bill.id}`,
    );
    expect(otherBill.status).toBe(404);

    // a production project of workspace A's own team: A's workspace key never reaches it
    const project = await call("POST", `/v1/teams/${a.teamId}/projects`, {
      key: a.owner.token,
      body: { name: "Production" },
    });
    const projectKey = await call("POST", `/v1/tenants/${project.body.id}/api-keys`, {
      key: a.owner.token,
      body: { scopes: ["stations:read", "billing:write", "stations:control"] },
    });
    const intoProduction = await sandbox(a, "GET", `/v1/tenants/${project.body.id}/stations`);
    expect(intoProduction.status).toBe(404);
    // and that project's key never reaches the sandbox tenant, nor starts sandbox sessions
    const intoSandbox = await call("GET", `/v1/tenants/${a.sandboxTenantId}/stations`, {
      key: projectKey.body.secret,
    });
    expect(intoSandbox.status).toBe(404);
    const start = await call("POST", "/v1/sessions", {
      key: projectKey.body.secret,
      body: {},
    });
    expect(start.status).toBe(403);
    expect(start.body.error.code).toBe("insufficient_scope");
    // no project key is ever made for a sandbox tenant
    for (const made of [
      await call("POST", `/v1/tenants/${a.sandboxTenantId}/api-keys`, {
        key: a.owner.token,
        body: { scopes: ["stations:read"] },
      }),
      await call("POST", "/v1/api-keys", {
        key: a.owner.token,
        body: { scopes: ["stations:read"], tenant_id: a.sandboxTenantId },
      }),
    ]) {
      expect(made.status).toBe(403);
      expect(made.body.error.code).toBe("forbidden");
    }
  });

  it("the sandbox tenant is no project: not listed, not counted, never the default project", async () => {
    const w = await aWorkspace();
    const teams = await call("GET", "/v1/me/teams", { key: w.owner.token });
    expect(teams.body.data[0].projects).toEqual([]);
    const projects = await call("GET", `/v1/teams/${w.teamId}/projects`, { key: w.owner.token });
    expect(projects.body.data).toEqual([]);
    const access = await call("GET", "/v1/access", { key: w.owner.token });
    expect(access.body.tenants).toEqual([]);
    const assigned = await call("POST", "/v1/me/tenant", { key: w.owner.token });
    expect(assigned.status).toBe(200);
    expect(assigned.body.tenant).toMatchObject({ name: "Default project" });
    expect(assigned.body.tenant.id).not.toBe(w.sandboxTenantId);
    const connect = await call("POST", `/v1/tenants/${w.sandboxTenantId}/payment-account`, {
      key: w.owner.token,
      body: {},
    });
    expect(connect.status).toBe(403);
    expect(connect.body.error.code).toBe("forbidden");
  });
});

describe("GET /v1/me and PUT /v1/branding", () => {
  it("describes a workspace key, and a person with their workspace", async () => {
    const w = await aWorkspace(["sandbox:read"]);
    const byKey = await sandbox(w, "GET", "/v1/me");
    expect(byKey.body).toEqual({
      kind: "api_key",
      user: null,
      api_key: {
        id: w.keyId,
        name: null,
        kind: "workspace",
        tenant_id: null,
        team_id: w.teamId,
        scopes: ["sandbox:read"],
        api_version: "2026-10-15",
        rate_limit_per_minute: 180,
        owner_user_id: w.owner.userId,
      },
      workspace: {
        team_id: w.teamId,
        name: expect.any(String),
        sandbox_tenant_id: w.sandboxTenantId,
        branding: {
          team_id: w.teamId,
          display_name: expect.any(String),
          accent_color: null,
          logo_url: null,
          custom: false,
        },
      },
      scopes: ["sandbox:read"],
      teams: [],
      pending_invites: 0,
    });
    const byOwner = await call("GET", "/v1/me", { key: w.owner.token });
    expect(byOwner.body).toMatchObject({
      kind: "user",
      user: { id: w.owner.userId },
      api_key: null,
      workspace: { team_id: w.teamId, sandbox_tenant_id: w.sandboxTenantId },
      scopes: ["sandbox:read", "sandbox:write"],
    });
  });

  it("validates branding and shows it, escaped, on the driver's checkout and return pages", async () => {
    const w = await aWorkspace();
    for (const body of [
      { display_name: "" },
      { display_name: "x".repeat(81) },
      { display_name: "A", accent_color: "red" },
      { display_name: "A", accent_color: "#12345" },
      { display_name: "A", logo_url: "http://example.com/logo.png" },
      { display_name: "A", logo_url: "javascript:alert(1)" },
      { display_name: "A", logo_url: `https://example.com/${"a".repeat(500)}` },
      { display_name: "A", extra: true },
    ]) {
      const res = await sandbox(w, "PUT", "/v1/branding", { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const hostile = `<script>alert("x")</script> & Co`;
    const set = await sandbox(w, "PUT", "/v1/branding", {
      body: {
        display_name: hostile,
        accent_color: "#fde047",
        logo_url: "https://cdn.example.com/logo.png?a=1&b=2",
      },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      team_id: w.teamId,
      display_name: hostile,
      accent_color: "#fde047",
      logo_url: "https://cdn.example.com/logo.png?a=1&b=2",
      custom: true,
    });
    expect((await sandbox(w, "GET", "/v1/me")).body.workspace.branding.display_name).toBe(hostile);
    // a sandbox session's simulator payment: its checkout and its return page carry the brand
    const session = await startSession(w);
    const token = (session.body.payment.checkout_url as string).split("/").pop()!;
    const view = await simulatorCheckoutView(token);
    expect(view).toMatchObject({
      projectName: hostile,
      accent: "#fde047",
      accentText: "#000000",
      logoUrl: "https://cdn.example.com/logo.png?a=1&b=2",
    });
    const html = renderToStaticMarkup(
      await PaymentReturnPage({
        searchParams: Promise.resolve({ payment: session.body.payment.id as string }),
      }),
    );
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co");
    expect(html).toContain('referrerPolicy="no-referrer"');
    expect(html).toContain('src="https://cdn.example.com/logo.png?a=1&amp;b=2"');
    expect(html).toContain("border-bottom:4px solid #fde047");
    const unknown = renderToStaticMarkup(
      await PaymentReturnPage({ searchParams: Promise.resolve({ payment: "pay_nothing" }) }),
    );
    expect(unknown).not.toContain("brand-name");
  });
});

describe("sessions without a virtual charger", () => {
  it("stay starting (advance and stop 409 session_not_charging), hold their connector, then fail and release the hold", async () => {
    const w = await aWorkspace();
    const [hub] = await sandboxStations(w);
    const connector = hub!.connectors[3]!.id;
    const started = await startSession(w, { connector_id: connector, hold_minor: 2500 });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      status: "starting",
      connector: { id: connector },
      bill: { hold_minor: 2500 },
      station: { online: false },
    });
    const id = started.body.id as string;
    const advance = await sandbox(w, "POST", `/v1/sandbox/sessions/${id}/advance`, {
      body: { energy_wh: 100 },
    });
    expect(advance.status).toBe(409);
    expect(advance.body.error.code).toBe("session_not_charging");
    expect(advance.headers.get("retry-after")).toBe("1");
    const stop = await sandbox(w, "POST", `/v1/sessions/${id}/stop`);
    expect(stop.status).toBe(409);
    expect(stop.body.error.code).toBe("session_not_charging");
    const refund = await sandbox(w, "POST", `/v1/sessions/${id}/refund`);
    expect(refund.status).toBe(409);
    expect(refund.body.error.code).toBe("session_not_settled");
    const busy = await startSession(w, { connector_id: connector });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({
      code: "no_free_connector",
      details: { open_session_ids: [id] },
    });
    expect((await sandboxStations(w))[0]!.connectors[3]!.open_session_id).toBe(id);

    // a minute on, nothing connected: the next look fails it and releases its hold
    await db().sandboxSession.update({
      where: { id },
      data: { createdAt: new Date(Date.now() - 120_000) },
    });
    await sandbox(w, "POST", `/v1/sessions/${id}/sync`);
    let failed: Record<string, any> = {};
    for (let i = 0; i < 100 && failed.status !== "failed"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      failed = (await sandbox(w, "GET", `/v1/sessions/${id}`)).body;
    }
    expect(failed).toMatchObject({
      status: "failed",
      last_error: { code: "start_timeout" },
    });
    // the simulator hold (approved at the start) is released
    for (let i = 0; i < 50 && failed.payment.status !== "released"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      failed = (await sandbox(w, "GET", `/v1/sessions/${id}`)).body;
    }
    expect(failed.payment).toMatchObject({ status: "released", captured_minor: 0 });
    expect((await sandboxStations(w))[0]!.connectors[3]!.open_session_id).toBeNull();
    const log = await sandbox(w, "GET", `/v1/events?type=sandbox_session.status_changed`);
    expect(log.body.data.map((e: { data: { status: string } }) => e.data.status)).toEqual([
      "starting",
      "failed",
    ]);
    const again = await sandbox(w, "POST", `/v1/sandbox/sessions/${id}/advance`, {
      body: { energy_wh: 100 },
    });
    expect(again.body.error.code).toBe("session_not_charging");
  });

  it("validates every input, and pays sandbox bills by the simulator only", async () => {
    const w = await aWorkspace();
    const project = await aTenantWithKey();
    const [, dc] = await sandboxStations(w);
    for (const body of [
      { hold_minor: 49 },
      { hold_minor: 10_001 },
      { station_id: 0 },
      { tariff_id: 2_147_483_647 },
      { station_id: (await aStation(project.tenantId, project.key)).id },
      { surprise: 1 },
    ]) {
      const res = await startSession(w, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const wrongConnector = await startSession(w, {
      station_id: dc!.id,
      connector_id: 2_000_000_000,
    });
    expect(wrongConnector.status).toBe(422);
    expect(wrongConnector.body.error.code).toBe("connector_not_found");
    for (const body of [
      { energy_wh: 0 },
      { energy_wh: 200_001 },
      { energy_wh: 1.5 },
      { energy_wh: 10, elapsed_seconds: 0 },
      { energy_wh: 10, elapsed_seconds: 86_401 },
      { energy_wh: 10, soc_percent: 101 },
      {},
    ]) {
      const res = await sandbox(w, "POST", "/v1/sandbox/sessions/sbs_unknown/advance", { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await sandbox(w, "GET", "/v1/sessions/sbs_unknown")).status).toBe(404);
    expect((await sandbox(w, "GET", "/v1/sessions/not-a-session")).status).toBe(422);
    for (const q of ["limit=0", "limit=101", "after=-1", "status=charged"])
      expect((await sandbox(w, "GET", `/v1/sessions?${q}`)).status, q).toBe(422);

    // a sandbox bill by hand, on the sandbox tenant's own routes: simulator yes, card no
    const t = `/v1/tenants/${w.sandboxTenantId}`;
    const locations = await sandbox(w, "GET", "/v1/locations");
    const bill = await sandbox(w, "POST", `${t}/bills`, {
      body: {
        station_id: dc!.id,
        connector_id: dc!.connectors[0]!.id,
        tariff_id: locations.body.data[0].default_tariff_id,
        source: "csms",
      },
      idempotencyKey: idem(),
    });
    expect(bill.status).toBe(201);
    const card = await sandbox(w, "POST", `${t}/payments`, {
      body: { bill_id: bill.body.id, service: "card" },
      idempotencyKey: idem(),
    });
    expect(card.status).toBe(409);
    expect(card.body.error.code).toBe("card_not_in_sandbox");
    const simulator = await sandbox(w, "POST", `${t}/payments`, {
      body: { bill_id: bill.body.id, service: "simulator" },
      idempotencyKey: idem(),
    });
    expect(simulator.status).toBe(201);
    const services = await sandbox(w, "GET", `${t}/payment-services`);
    expect(services.body.data).toEqual([
      { service: "card", available: false, reason: "a sandbox takes simulator payments only" },
      { service: "simulator", available: true, reason: null },
    ]);
  });
});
