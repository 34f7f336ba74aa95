import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";
import { eventTypeSchema } from "../events/event-types";

const keysOf = (tenantId: number) => `/v1/tenants/${tenantId}/api-keys`;
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((k) => k.id);

describe("creating keys", () => {
  it("POST /v1/api-keys with tenant_id makes a project key owned by the caller", async () => {
    const project = await aTenantWithKey();
    const dev = await aMember(project.teamId, "developer");
    const created = await call("POST", "/v1/api-keys", {
      key: dev.token,
      body: { tenant_id: project.tenantId, scopes: ["stations:read", "stations:write"] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: null,
      scopes: ["stations:read", "stations:write"],
      api_version: "2026-10-15",
      owner: { user_id: dev.userId, email: dev.email },
      rate_limit_per_minute: 180,
      revoked_at: null,
      tenant_id: project.tenantId,
    });
    expect(created.body.secret.startsWith(created.body.prefix)).toBe(true);
    expect(created.body.prefix).toMatch(/^cpk_live_.{4}$/);
    expect(JSON.stringify(created.body)).not.toMatch(/hash/i);
    const mine = await call("GET", "/v1/api-keys", { key: dev.token });
    expect(ids(mine)).toEqual([created.body.id]);
    expect(mine.body.data[0]).not.toHaveProperty("secret");
    expect(
      (await call("GET", `/v1/tenants/${project.tenantId}/stations`, { key: created.body.secret }))
        .status,
    ).toBe(200);
  });

  it("validates scopes, versions and tenant_id", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    for (const body of [
      { tenant_id: project.tenantId, scopes: [] },
      { tenant_id: project.tenantId, scopes: ["stations:read"], api_version: "2020-01-01" },
      { tenant_id: project.tenantId },
      { tenant_id: "one", scopes: ["stations:read"] },
      { scopes: ["sandbox:read"], tenant_id: project.tenantId },
      { scopes: ["stations:read"], tenant_id: project.tenantId, secret: "mine" },
    ]) {
      const res = await call("POST", "/v1/api-keys", { key: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code, JSON.stringify(body)).toBe("validation_failed");
    }
    const mixed = await call("POST", keysOf(project.tenantId), {
      key: owner.token,
      body: { scopes: ["stations:read", "sandbox:write"] },
    });
    expect(mixed.status).toBe(422);
    expect(mixed.body.error.code).toBe("scope_mix");
    const workspaceOnProject = await call("POST", keysOf(project.tenantId), {
      key: owner.token,
      body: { scopes: ["sandbox:read"] },
    });
    expect(workspaceOnProject.body.error.code).toBe("scope_mix");
  });

  it("a key's scopes are limited to what the creator's role grants", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const dev = await aMember(project.teamId, "developer");
    const operator = await aMember(project.teamId, "operator");
    const billing = await aMember(project.teamId, "billing");
    const refund = await call("POST", keysOf(project.tenantId), {
      key: dev.token,
      body: { scopes: ["stations:read", "billing:refund"] },
    });
    expect(refund.status).toBe(403);
    expect(refund.body.error.code).toBe("insufficient_scope");
    expect(refund.body.error.details.missing_scopes).toEqual(["billing:refund"]);
    const viaMine = await call("POST", "/v1/api-keys", {
      key: dev.token,
      body: { tenant_id: project.tenantId, scopes: ["stations:admin"] },
    });
    expect(viaMine.body.error.code).toBe("insufficient_scope");
    for (const person of [operator, billing]) {
      const res = await call("POST", keysOf(project.tenantId), {
        key: person.token,
        body: { scopes: ["stations:read"] },
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    const admin = await call("POST", keysOf(project.tenantId), {
      key: owner.token,
      body: { scopes: ["stations:admin", "billing:refund"], name: "ops" },
    });
    expect(admin.status).toBe(201);
    expect(admin.body.owner.user_id).toBe(owner.userId);

    // A key never holds more than its owner's current role: demote the owner and it narrows.
    await db().teamMember.update({
      where: { teamId_userId: { teamId: project.teamId, userId: owner.userId } },
      data: { role: "viewer" },
    });
    const access = await call("GET", "/v1/access", { key: admin.body.secret });
    expect(access.body.tenants[0].scopes).toEqual([]);
  });

  it("non-members get 404 for the project, as for an unknown one", async () => {
    const project = await aTenantWithKey();
    const outsider = await aUser();
    const viaMine = await call("POST", "/v1/api-keys", {
      key: outsider.token,
      body: { tenant_id: project.tenantId, scopes: ["stations:read"] },
    });
    expect(viaMine.status).toBe(404);
    const unknown = await call("POST", "/v1/api-keys", {
      key: outsider.token,
      body: { tenant_id: 2_000_000_000, scopes: ["stations:read"] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(viaMine.body);
    expect((await call("GET", keysOf(project.tenantId), { key: outsider.token })).status).toBe(404);
  });

  it("workspace keys: only for a person who owns a team", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const refused = await call("POST", "/v1/api-keys", {
      key: admin.token,
      body: { scopes: ["sandbox:read", "sandbox:write"] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    const owner = await aMember(project.teamId, "owner");
    const made = await call("POST", "/v1/api-keys", {
      key: owner.token,
      body: { scopes: ["sandbox:read"], name: "sandbox" },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      team_id: project.teamId,
      tenant_id: null,
      kind: "workspace",
    });
    expect(ids(await call("GET", "/v1/api-keys", { key: owner.token }))).toEqual([made.body.id]);
    // A workspace key is not a project key: the project list does not show it.
    expect(ids(await call("GET", keysOf(project.tenantId), { key: owner.token }))).not.toContain(
      made.body.id,
    );
  });
});

describe("listing and revoking", () => {
  it("managers list every key of the project; revocation is refused from the next request", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const dev = await aMember(project.teamId, "developer");
    const viewer = await aMember(project.teamId, "viewer");
    const devKey = await call("POST", keysOf(project.tenantId), {
      key: dev.token,
      body: { scopes: ["stations:read"] },
    });
    const listed = await call("GET", keysOf(project.tenantId), { key: admin.token });
    expect(ids(listed).sort()).toEqual([project.keyId, devKey.body.id].sort());
    expect(JSON.stringify(listed.body)).not.toContain(devKey.body.secret);
    expect((await call("GET", keysOf(project.tenantId), { key: viewer.token })).status).toBe(403);
    // GET /v1/api-keys shows only the caller's own keys.
    expect(ids(await call("GET", "/v1/api-keys", { key: admin.token }))).toEqual([]);

    // Another person's key through /v1/api-keys: 404, untouched.
    const foreign = await call("DELETE", `/v1/api-keys/${devKey.body.id}`, { key: admin.token });
    expect(foreign.status).toBe(404);
    expect(
      (await call("GET", `/v1/tenants/${project.tenantId}/stations`, { key: devKey.body.secret }))
        .status,
    ).toBe(200);

    // A key of another project through this project's route: 404.
    const other = await aTenantWithKey();
    const cross = await call("DELETE", `${keysOf(project.tenantId)}/${other.keyId}`, {
      key: admin.token,
    });
    expect(cross.status).toBe(404);

    const revoked = await call("DELETE", `${keysOf(project.tenantId)}/${devKey.body.id}`, {
      key: admin.token,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const after = await call("GET", `/v1/tenants/${project.tenantId}/stations`, {
      key: devKey.body.secret,
    });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("unauthenticated");
    const twice = await call("DELETE", `${keysOf(project.tenantId)}/${devKey.body.id}`, {
      key: admin.token,
    });
    expect(twice.body.revoked_at).toBe(revoked.body.revoked_at);
    expect(
      (await call("DELETE", `${keysOf(project.tenantId)}/${devKey.body.id}`, { key: viewer.token }))
        .status,
    ).toBe(403);
  });
});

describe("PUT /v1/admin/api-keys/{key_id}/rate-limit", () => {
  it("applies within the current minute and records who changed it in the project's events", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const path = `/v1/admin/api-keys/${project.keyId}/rate-limit`;
    const stations = `/v1/tenants/${project.tenantId}/stations`;
    const first = await call("PUT", path, { key: owner.token, body: { requests_per_minute: 1 } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: project.keyId, rate_limit_per_minute: 1 });
    expect((await call("GET", stations, { key: project.key })).status).toBe(200);
    const limited = await call("GET", stations, { key: project.key });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");

    const raised = await call("PUT", path, {
      key: owner.token,
      body: { requests_per_minute: 1200 },
    });
    expect(raised.body.rate_limit_per_minute).toBe(1200);
    expect((await call("GET", stations, { key: project.key })).status).toBe(200);

    const events = await call("GET", `/v1/tenants/${project.tenantId}/events`, {
      key: owner.token,
    });
    const changes = events.body.data.filter(
      (e: { type: string }) => e.type === "api_key.rate_limit_changed",
    );
    expect(changes.map((e: { data: unknown }) => e.data)).toEqual([
      {
        key_id: project.keyId,
        tenant_id: project.tenantId,
        requests_per_minute: 1,
        previous: 180,
        changed_by: owner.userId,
      },
      {
        key_id: project.keyId,
        tenant_id: project.tenantId,
        requests_per_minute: 1200,
        previous: 1,
        changed_by: owner.userId,
      },
    ]);
    expect(changes[0].resource_id).toBe(project.keyId);
  });

  it("refuses others with 403, unknown keys with 404, bad values with 422", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const path = `/v1/admin/api-keys/${project.keyId}/rate-limit`;
    for (const person of [
      await aMember(project.teamId, "developer"),
      await aMember(project.teamId, "viewer"),
      await aUser(),
      await aUser({ platformRole: "platform-support" }),
    ]) {
      const res = await call("PUT", path, { key: person.token, body: { requests_per_minute: 5 } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    const unknown = await call("PUT", "/v1/admin/api-keys/key_doesnotexist/rate-limit", {
      key: admin.token,
      body: { requests_per_minute: 5 },
    });
    expect(unknown.status).toBe(404);
    for (const body of [
      { requests_per_minute: 0 },
      { requests_per_minute: 1201 },
      { requests_per_minute: 2.5 },
      { requests_per_minute: "10" },
      {},
    ]) {
      const res = await call("PUT", path, { key: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
    }
    const key = await db().apiKey.findUniqueOrThrow({ where: { id: project.keyId } });
    expect(key.rateLimitPerMinute).toBe(180);
    expect(await db().event.count({ where: { tenantId: project.tenantId } })).toBe(0);
  });

  it("platform admins change any key; a workspace key's change is an event of its workspace log only", async () => {
    const person = await aUser();
    await call("POST", "/v1/workspace", { key: person.token, body: { name: "WS" } });
    const ws = await call("POST", "/v1/api-keys", {
      key: person.token,
      body: { scopes: ["sandbox:read"] },
    });
    const staff = await aUser({ platformRole: "platform-admin" });
    const before = await db().event.count();
    const res = await call("PUT", `/v1/admin/api-keys/${ws.body.id}/rate-limit`, {
      key: staff.token,
      body: { requests_per_minute: 30 },
    });
    expect(res.status).toBe(200);
    expect(res.body.rate_limit_per_minute).toBe(30);
    // one event, in the workspace's sandbox tenant's log (no project's)
    expect(await db().event.count()).toBe(before + 1);
    const logged = await db().event.findFirstOrThrow({
      where: { resourceId: ws.body.id as string },
    });
    expect((await db().tenant.findUniqueOrThrow({ where: { id: logged.tenantId } })).kind).toBe(
      "sandbox",
    );
    const access = await call("GET", "/v1/access", { key: ws.body.secret });
    expect(access.body.principal.rate_limit_per_minute).toBe(30);
  });

  it("the event type can be subscribed to by webhooks", () => {
    expect(eventTypeSchema.safeParse("api_key.rate_limit_changed").success).toBe(true);
  });
});
