import { describe, expect, it } from "vitest";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";

describe("API keys managed by signed-in people", () => {
  it("creates a project key shown once, lists it with owner and version, uses and revokes it", async () => {
    const project = await aTenantWithKey();
    const dev = await aMember(project.teamId, "developer");
    const path = `/v1/tenants/${project.tenantId}/api-keys`;
    const created = await call("POST", path, {
      key: dev.token,
      body: { name: "backend", scopes: ["stations:read"], api_version: "2026-10-14" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "backend",
      kind: "project",
      tenant_id: project.tenantId,
      scopes: ["stations:read"],
      api_version: "2026-10-14",
      owner: { user_id: dev.userId, email: dev.email },
      revoked_at: null,
    });
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^cpk_live_/);

    const listed = await call("GET", path, { key: dev.token });
    const row = listed.body.data.find((k: { id: string }) => k.id === created.body.id);
    expect(row).toMatchObject({ owner: { user_id: dev.userId }, api_version: "2026-10-14" });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(listed.body)).not.toMatch(/hash/i);
    const mine = await call("GET", "/v1/api-keys", { key: dev.token });
    expect(mine.body.data.map((k: { id: string }) => k.id)).toEqual([created.body.id]);

    const used = await call("GET", `/v1/tenants/${project.tenantId}/stations`, { key: secret });
    expect(used.status).toBe(200);
    expect(used.headers.get("service-version")).toBe("2026-10-14");

    const revoked = await call("DELETE", `/v1/api-keys/${created.body.id}`, { key: dev.token });
    expect(revoked.body.revoked_at).not.toBeNull();
    expect(
      (await call("GET", `/v1/tenants/${project.tenantId}/stations`, { key: secret })).status,
    ).toBe(401);
  });

  it("refuses mixed scopes, scopes beyond the creator's role, and roles that cannot manage keys", async () => {
    const project = await aTenantWithKey();
    const dev = await aMember(project.teamId, "developer");
    const viewer = await aMember(project.teamId, "viewer");
    const mixed = await call("POST", "/v1/api-keys", {
      key: dev.token,
      body: { tenant_id: project.tenantId, scopes: ["stations:read", "sandbox:read"] },
    });
    expect(mixed.status).toBe(422);
    expect(mixed.body.error.code).toBe("scope_mix");
    const beyond = await call("POST", `/v1/tenants/${project.tenantId}/api-keys`, {
      key: dev.token,
      body: { scopes: ["stations:admin"] },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body.error.details.missing_scopes).toEqual(["stations:admin"]);
    const byViewer = await call("POST", `/v1/tenants/${project.tenantId}/api-keys`, {
      key: viewer.token,
      body: { scopes: ["stations:read"] },
    });
    expect(byViewer.status).toBe(403);
    const unknown = await call("POST", "/v1/api-keys", {
      key: dev.token,
      body: { tenant_id: project.tenantId, scopes: ["stations:everything"] },
    });
    expect(unknown.status).toBe(422);
    const noTenant = await call("POST", "/v1/api-keys", {
      key: dev.token,
      body: { scopes: ["stations:read"] },
    });
    expect(noTenant.status).toBe(422);
  });

  it("workspace keys belong to the workspace owner and cannot reach project routes (404, as another tenant's)", async () => {
    const person = await aUser();
    const none = await call("POST", "/v1/api-keys", {
      key: person.token,
      body: { scopes: ["sandbox:read"] },
    });
    expect(none.status).toBe(403);
    const ws = await call("POST", "/v1/workspace", { key: person.token, body: { name: "WS" } });
    const key = await call("POST", "/v1/api-keys", {
      key: person.token,
      body: { scopes: ["sandbox:read"] },
    });
    expect(key.status).toBe(201);
    expect(key.body).toMatchObject({ kind: "workspace", team_id: ws.body.id, tenant_id: null });
    const access = await call("GET", "/v1/access", { key: key.body.secret });
    expect(access.body.tenants).toEqual([]);
    const project = await call("POST", `/v1/teams/${ws.body.id}/projects`, {
      key: person.token,
      body: { name: "P" },
    });
    const refused = await call("GET", `/v1/tenants/${project.body.id}/stations`, {
      key: key.body.secret,
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe("not_found");
  });

  it("admins change a key's rate limit; it applies to the next request and is logged", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const dev = await aMember(project.teamId, "developer");
    const path = `/v1/admin/api-keys/${project.keyId}/rate-limit`;
    expect(
      (await call("PUT", path, { key: dev.token, body: { requests_per_minute: 5 } })).status,
    ).toBe(403);
    expect(
      (await call("PUT", path, { key: admin.token, body: { requests_per_minute: 0 } })).status,
    ).toBe(422);
    expect(
      (await call("PUT", path, { key: project.key, body: { requests_per_minute: 5 } })).body.error
        .code,
    ).toBe("user_token_required");
    const outsider = await aUser();
    expect(
      (await call("PUT", path, { key: outsider.token, body: { requests_per_minute: 5 } })).body
        .error.code,
    ).toBe("forbidden");

    const stations = `/v1/tenants/${project.tenantId}/stations`;
    expect((await call("GET", stations, { key: project.key })).status).toBe(200);
    const set = await call("PUT", path, { key: admin.token, body: { requests_per_minute: 1 } });
    expect(set.status).toBe(200);
    expect(set.body.rate_limit_per_minute).toBe(1);
    const limited = await call("GET", stations, { key: project.key });
    expect(limited.status).toBe(429);

    const events = await call(
      "GET",
      `/v1/tenants/${project.tenantId}/events?type=api_key.rate_limit_changed`,
      {
        key: admin.token,
      },
    );
    expect(events.body.data).toEqual([
      expect.objectContaining({
        type: "api_key.rate_limit_changed",
        resource_id: project.keyId,
        data: expect.objectContaining({ requests_per_minute: 1, previous: 180 }),
      }),
    ]);

    const staff = await aUser({ platformRole: "platform-admin" });
    expect(
      (await call("PUT", path, { key: staff.token, body: { requests_per_minute: 1200 } })).status,
    ).toBe(200);
  });
});
