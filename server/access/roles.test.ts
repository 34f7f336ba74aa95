import { describe, expect, it } from "vitest";
import { call, idem } from "../../testing/api";
import { aLocationBody, aStation, aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";
import { ROLE_SCOPES, TEAM_ROLES } from "./roles";

/**
 * Every role against one route per scope: allowed exactly when its role grants the scope.
 * "Allowed" means the answer is not 403 (the request may still fail for its own reasons).
 */
describe("roles on /v1", () => {
  it("each role can do exactly what its scopes allow", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const t = `/v1/tenants/${project.tenantId}`;
    const probes: { scope: string; method: string; path: string; body?: unknown }[] = [
      { scope: "stations:read", method: "GET", path: `${t}/stations/${station.id}` },
      { scope: "stations:write", method: "POST", path: `${t}/locations`, body: aLocationBody() },
      {
        scope: "stations:control",
        method: "POST",
        path: `${t}/stations/${station.id}/commands`,
        body: { action: "reset", mode: "soft" },
      },
      { scope: "billing:read", method: "GET", path: `${t}/tariffs` },
      {
        scope: "billing:write",
        method: "POST",
        path: `${t}/tariffs`,
        body: { rate_minor_per_kwh: 30 },
      },
      { scope: "webhooks:read", method: "GET", path: `${t}/webhooks` },
      {
        scope: "webhooks:write",
        method: "POST",
        path: `${t}/webhooks`,
        body: { url: "https://hooks.example.com/x", events: ["webhook.test"] },
      },
    ];
    const matrix: Record<string, Record<string, boolean>> = {};
    const expected: Record<string, Record<string, boolean>> = {};
    for (const role of TEAM_ROLES) {
      const person = await aMember(project.teamId, role);
      matrix[role] = {};
      expected[role] = {};
      for (const probe of probes) {
        const res = await call(probe.method, probe.path, {
          key: person.token,
          body: probe.body,
          idempotencyKey: probe.method === "GET" ? undefined : idem(),
        });
        expect(res.status, `${role} ${probe.method} ${probe.path}`).not.toBe(500);
        matrix[role][probe.scope] = res.status !== 403;
        expected[role][probe.scope] = (ROLE_SCOPES[role] as readonly string[]).includes(
          probe.scope,
        );
      }
    }
    expect(matrix).toEqual(expected);
    // Spot-check the table itself against the spec: viewers read, operators also command,
    // developers do all but stations:admin and refunds, billing holds no project scope.
    expect(expected.viewer).toMatchObject({ "stations:read": true, "stations:control": false });
    expect(expected.operator).toMatchObject({ "stations:control": true, "stations:write": false });
    expect(expected.developer).toMatchObject({ "stations:write": true, "webhooks:write": true });
    expect(Object.values(expected.billing!).every((v) => !v)).toBe(true);

    // Platform support reads any project; platform admins act in it.
    const support = await aUser({ platformRole: "platform-support" });
    expect((await call("GET", `${t}/stations`, { key: support.token })).status).toBe(200);
    expect(
      (
        await call("POST", `${t}/locations`, {
          key: support.token,
          body: aLocationBody(),
          idempotencyKey: idem(),
        })
      ).status,
    ).toBe(403);
    const admin = await aUser({ platformRole: "platform-admin" });
    expect(
      (
        await call("POST", `${t}/locations`, {
          key: admin.token,
          body: aLocationBody(),
          idempotencyKey: idem(),
        })
      ).status,
    ).toBe(201);
  });
});
