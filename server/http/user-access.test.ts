import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { aLocationBody, aTenantWithKey } from "../../testing/builders";
import { accessTokenFor, aMember, aUser } from "../../testing/users";

describe("signed-in users' access tokens on /v1", () => {
  it("reach a tenant of their team with their role's scopes, and nothing else", async () => {
    const project = await aTenantWithKey();
    const other = await aTenantWithKey();
    const viewer = await aMember(project.teamId, "viewer");
    const developer = await aMember(project.teamId, "developer");

    const read = await call("GET", `/v1/tenants/${project.tenantId}/locations`, {
      key: viewer.token,
    });
    expect(read.status).toBe(200);

    const write = await call("POST", `/v1/tenants/${project.tenantId}/locations`, {
      key: viewer.token,
      body: aLocationBody(),
      idempotencyKey: idem(),
    });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("insufficient_scope");
    expect(write.body.error.details.missing_scopes).toEqual(["stations:write"]);

    const created = await call("POST", `/v1/tenants/${project.tenantId}/locations`, {
      key: developer.token,
      body: aLocationBody(),
      idempotencyKey: idem(),
    });
    expect(created.status).toBe(201);

    const foreign = await call("GET", `/v1/tenants/${other.tenantId}/locations`, {
      key: developer.token,
    });
    const missing = await call("GET", `/v1/tenants/2000000000/locations`, {
      key: developer.token,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });

  it("lose access as soon as their membership ends or they are suspended", async () => {
    const project = await aTenantWithKey();
    const operator = await aMember(project.teamId, "operator");
    const path = `/v1/tenants/${project.tenantId}/stations`;
    expect((await call("GET", path, { key: operator.token })).status).toBe(200);
    await db().teamMember.delete({
      where: { teamId_userId: { teamId: project.teamId, userId: operator.userId } },
    });
    expect((await call("GET", path, { key: operator.token })).status).toBe(404);

    const viewer = await aMember(project.teamId, "viewer");
    await db().user.update({ where: { id: viewer.userId }, data: { suspendedAt: new Date() } });
    const suspended = await call("GET", path, { key: viewer.token });
    expect(suspended.status).toBe(401);
    expect(suspended.body.error.code).toBe("unauthenticated");
  });

  it("refuses tokens that are expired, forged or for another audience", async () => {
    const project = await aTenantWithKey();
    const viewer = await aMember(project.teamId, "viewer");
    const path = `/v1/tenants/${project.tenantId}/stations`;
    const expired = await call("GET", path, { key: await accessTokenFor(viewer.userId, -60) });
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
    const [h, p] = viewer.token.split(".");
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: String(project.ownerUserId) })).toString("base64url")}.${viewer.token.split(".")[2]}`;
    expect((await call("GET", path, { key: tampered })).status).toBe(401);
    expect((await call("GET", path, { key: "not-a-key" })).status).toBe(401);
  });

  it("lists every project a user can reach with roles and scopes at /v1/access", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const person = await aMember(a.teamId, "operator");
    await db().teamMember.create({
      data: { teamId: b.teamId, userId: person.userId, role: "billing" },
    });
    const res = await call("GET", "/v1/access", { key: person.token });
    expect(res.status).toBe(200);
    expect(res.body.principal).toMatchObject({ type: "user", user_id: person.userId });
    const byId = Object.fromEntries(
      res.body.tenants.map((t: { id: number }) => [t.id, t]),
    ) as Record<number, { roles: string[]; scopes: string[] }>;
    expect(byId[a.tenantId]?.roles).toEqual(["operator"]);
    expect(byId[a.tenantId]?.scopes.sort()).toEqual(
      ["billing:read", "stations:control", "stations:read", "webhooks:read"].sort(),
    );
    expect(byId[b.tenantId]).toEqual(expect.objectContaining({ roles: ["billing"], scopes: [] }));

    const nobody = await aUser();
    const empty = await call("GET", "/v1/access", { key: nobody.token });
    expect(empty.body.tenants).toEqual([]);
  });

  it("narrows a project key to what its owner's current role allows", async () => {
    const project = await aTenantWithKey();
    const path = `/v1/tenants/${project.tenantId}/locations`;
    const body = aLocationBody();
    expect(
      (await call("POST", path, { key: project.key, body, idempotencyKey: idem() })).status,
    ).toBe(201);
    // A second owner takes over; the key's owner is demoted to viewer.
    const other = await aUser();
    await db().teamMember.create({
      data: { teamId: project.teamId, userId: other.userId, role: "owner" },
    });
    await db().teamMember.update({
      where: { teamId_userId: { teamId: project.teamId, userId: project.ownerUserId } },
      data: { role: "viewer" },
    });
    const refused = await call("POST", path, { key: project.key, body, idempotencyKey: idem() });
    expect(refused.status).toBe(403);
    expect((await call("GET", path, { key: project.key })).status).toBe(200);
    await db().teamMember.delete({
      where: { teamId_userId: { teamId: project.teamId, userId: project.ownerUserId } },
    });
    expect((await call("GET", path, { key: project.key })).status).toBe(401);
  });
});
