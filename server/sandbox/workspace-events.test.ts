import { describe, expect, it } from "vitest";
import { db } from "../db";
import { setApiKeyRateLimit } from "../keys/set-rate-limit";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";

/** A project in a team with a second owner who holds a workspace key (sandbox:read). */
async function aWorkspace(scopes: string[] = ["sandbox:read"]) {
  const project = await aTenantWithKey();
  const owner = await aMember(project.teamId, "owner");
  const made = await call("POST", "/v1/api-keys", { key: owner.token, body: { scopes } });
  expect(made.status).toBe(201);
  return {
    ...project,
    owner,
    workspaceKeyId: made.body.id as string,
    workspaceKey: made.body.secret as string,
  };
}

const setLimit = (keyId: string, token: string, perMinute: number) =>
  call("PUT", `/v1/admin/api-keys/${keyId}/rate-limit`, {
    key: token,
    body: { requests_per_minute: perMinute },
  });

describe("GET /v1/events (the workspace event log: its sandbox tenant's)", () => {
  it("records rate-limit changes of workspace and project keys, read by the workspace key and its owner", async () => {
    const w = await aWorkspace();
    expect((await setLimit(w.workspaceKeyId, w.owner.token, 30)).status).toBe(200);
    expect((await setLimit(w.keyId, w.owner.token, 90)).status).toBe(200);

    const byKey = await call("GET", "/v1/events", { key: w.workspaceKey });
    expect(byKey.status).toBe(200);
    // the team's sandbox tenant holds the log: made by the first change, provisioned on first read
    const sandbox = await db().tenant.findFirstOrThrow({
      where: { teamId: w.teamId, kind: "sandbox" },
    });
    // the same records on the sandbox tenant's own log, where its webhooks carry them
    const tenantLog = await call("GET", `/v1/tenants/${sandbox.id}/events`, {
      key: w.owner.token,
    });
    expect(tenantLog.body.data.map((e: { id: string }) => e.id)).toEqual(
      byKey.body.data.map((e: { id: string }) => e.id),
    );
    expect(byKey.body.data).toEqual([
      {
        id: expect.stringMatching(/^evt_/) as string,
        sequence: 1,
        type: "api_key.rate_limit_changed",
        tenant_id: sandbox.id,
        resource_id: w.workspaceKeyId,
        team_id: w.teamId,
        created_at: expect.any(String) as string,
        data: {
          key_id: w.workspaceKeyId,
          tenant_id: null,
          requests_per_minute: 30,
          previous: 180,
          changed_by: w.owner.userId,
        },
      },
      expect.objectContaining({
        sequence: 2,
        data: expect.objectContaining({
          key_id: w.keyId,
          tenant_id: w.tenantId,
          requests_per_minute: 90,
        }) as unknown,
      }),
    ]);
    expect(byKey.body).toMatchObject({ next_cursor: 2, has_more: false });
    // The signed-in owner reads the same log (their oldest owned team is this one).
    const byOwner = await call("GET", "/v1/events", { key: w.owner.token });
    expect(byOwner.body.data.map((e: { id: string }) => e.id)).toEqual(
      byKey.body.data.map((e: { id: string }) => e.id),
    );
  });

  it("records a change from the operator's command line with changed_by null", async () => {
    const w = await aWorkspace();
    expect(
      await setApiKeyRateLimit({ keyId: w.keyId, perMinute: 600, changedBy: null }),
    ).toMatchObject({ rateLimitPerMinute: 600 });
    const events = await call("GET", "/v1/events", { key: w.workspaceKey });
    expect(events.body.data.map((e: { data: unknown }) => e.data)).toEqual([
      {
        key_id: w.keyId,
        tenant_id: w.tenantId,
        requests_per_minute: 600,
        previous: 180,
        changed_by: null,
      },
    ]);
    expect(
      await setApiKeyRateLimit({ keyId: "key_missing", perMinute: 5, changedBy: null }),
    ).toBeNull();
  });

  it("pages with after and limit; an empty page keeps the cursor", async () => {
    const w = await aWorkspace();
    for (const n of [10, 20, 30]) await setLimit(w.workspaceKeyId, w.owner.token, n);
    const first = await call("GET", "/v1/events?limit=2", { key: w.workspaceKey });
    expect(
      first.body.data.map(
        (e: { data: { requests_per_minute: number } }) => e.data.requests_per_minute,
      ),
    ).toEqual([10, 20]);
    expect(first.body).toMatchObject({ next_cursor: 2, has_more: true });
    const rest = await call("GET", `/v1/events?after=${first.body.next_cursor}`, {
      key: w.workspaceKey,
    });
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.data[0].data.previous).toBe(20);
    const empty = await call("GET", "/v1/events?after=3", { key: w.workspaceKey });
    expect(empty.body).toEqual({ data: [], next_cursor: 3, has_more: false });
  });

  it("keeps each workspace's events to itself", async () => {
    const a = await aWorkspace();
    const b = await aWorkspace();
    await setLimit(a.workspaceKeyId, a.owner.token, 15);
    expect((await call("GET", "/v1/events", { key: b.workspaceKey })).body.data).toEqual([]);
    expect((await call("GET", "/v1/events", { key: b.owner.token })).body.data).toEqual([]);
  });

  it("refuses project keys, keys without sandbox:read and people who own no team", async () => {
    const w = await aWorkspace(["sandbox:write"]);
    const project = await call("GET", "/v1/events", { key: w.key });
    expect(project.status).toBe(403);
    expect(project.body.error.code).toBe("forbidden");
    const writeOnly = await call("GET", "/v1/events", { key: w.workspaceKey });
    expect(writeOnly.status).toBe(403);
    expect(writeOnly.body.error).toMatchObject({
      code: "insufficient_scope",
      details: { missing_scopes: ["sandbox:read"] },
    });
    const viewer = await aMember(w.teamId, "viewer");
    const noWorkspace = await call("GET", "/v1/events", { key: viewer.token });
    expect(noWorkspace.status).toBe(403);
    expect(noWorkspace.body.error.code).toBe("no_grant");
    const stranger = await aUser();
    expect((await call("GET", "/v1/events", { key: stranger.token })).body.error.code).toBe(
      "no_grant",
    );
    const bad = await call("GET", "/v1/events?limit=0", { key: w.owner.token });
    expect(bad.status).toBe(422);
  });
});
