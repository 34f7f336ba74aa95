import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { aLocationBody, aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";

const counts = async () => ({ teams: await db().team.count(), tenants: await db().tenant.count() });

describe("the signed-in person: workspace, tenant assignment, context", () => {
  it("POST /v1/me/tenant is 403 with nothing created without a grant, then one tenant however often it is called", async () => {
    const person = await aUser();
    const before = await counts();
    const refused = await call("POST", "/v1/me/tenant", { key: person.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("no_grant");
    expect(await counts()).toEqual(before);

    const ws = await call("POST", "/v1/workspace", { key: person.token, body: { name: "Mine" } });
    expect(ws.status).toBe(200);
    expect(ws.body).toMatchObject({ name: "Mine", role: "owner", created: true });
    const again = await call("POST", "/v1/workspace", { key: person.token, body: { name: "X" } });
    expect(again.body).toMatchObject({ id: ws.body.id, name: "Mine", created: false });

    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => call("POST", "/v1/me/tenant", { key: person.token })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.tenant.id)).size).toBe(1);
    expect(answers[0]!.body).toMatchObject({
      tenant: { name: "Default project", team_id: ws.body.id },
      roles: ["owner"],
    });
    expect(answers[0]!.body.scopes).toContain("stations:admin");
    expect(await db().tenant.count({ where: { teamId: ws.body.id } })).toBe(1);

    const withBody = await call("POST", "/v1/me/tenant", { key: person.token, body: { id: 1 } });
    expect(withBody.status).toBe(422);

    const me = await call("GET", "/v1/me", { key: person.token });
    expect(me.body).toMatchObject({
      user: { id: person.userId, email: person.email },
      teams: [{ id: ws.body.id, role: "owner", projects: [{ name: "Default project" }] }],
      pending_invites: 0,
    });
  });

  it("concurrent workspace calls create one team", async () => {
    const person = await aUser();
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        call("POST", "/v1/workspace", { key: person.token, body: { name: "W" } }),
      ),
    );
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await db().teamMember.count({ where: { userId: person.userId } })).toBe(1);
  });

  it("refuses API keys on routes for people", async () => {
    const project = await aTenantWithKey();
    for (const [method, path] of [
      ["POST", "/v1/me/tenant"],
      ["GET", "/v1/api-keys"],
      ["GET", `/v1/teams/${project.teamId}/members`],
      ["GET", `/v1/tenants/${project.tenantId}/api-keys`],
    ] as const) {
      const res = await call(method, path, { key: project.key });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code, path).toBe("user_token_required");
    }
    // GET /v1/me answers keys too (issue 23): the key itself, no person, no workspace
    const me = await call("GET", "/v1/me", { key: project.key });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      kind: "api_key",
      user: null,
      api_key: { id: project.keyId, kind: "project", tenant_id: project.tenantId },
      workspace: null,
      teams: [],
    });
  });
});

describe("projects", () => {
  it("owners and admins create projects; names are unique; other roles and outsiders are refused", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const dev = await aMember(project.teamId, "developer");
    const outsider = await aUser();
    const path = `/v1/teams/${project.teamId}/projects`;
    const created = await call("POST", path, { key: admin.token, body: { name: "Second" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Second", team_id: project.teamId });
    const dup = await call("POST", path, { key: admin.token, body: { name: "Second" } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("project_name_taken");
    expect((await call("POST", path, { key: dev.token, body: { name: "Dev" } })).status).toBe(403);
    expect((await call("POST", path, { key: outsider.token, body: { name: "O" } })).status).toBe(
      404,
    );
    const listed = await call("GET", path, { key: dev.token });
    expect(listed.body.data.map((t: { name: string }) => t.name)).toContain("Second");

    // The new project is reachable with the admin's role scopes at once.
    const loc = await call("POST", `/v1/tenants/${created.body.id}/locations`, {
      key: admin.token,
      body: aLocationBody(),
      idempotencyKey: idem(),
    });
    expect(loc.status).toBe(201);
  });

  it("stops at the project limit", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    await db().tenant.createMany({
      data: Array.from({ length: 19 }, (_, i) => ({ teamId: project.teamId, name: `P${i}` })),
    });
    const res = await call("POST", `/v1/teams/${project.teamId}/projects`, {
      key: admin.token,
      body: { name: "One too many" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("project_limit");
  });

  it("PATCH tenant renames and sets authorization mode for owners and admins only", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const operator = await aMember(project.teamId, "operator");
    const path = `/v1/tenants/${project.tenantId}`;
    const ok = await call("PATCH", path, {
      key: admin.token,
      body: { name: "Renamed", authorization_mode: "known_tokens" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: "Renamed", authorization_mode: "known_tokens" });
    expect((await call("GET", path, { key: operator.token })).body.name).toBe("Renamed");
    expect((await call("PATCH", path, { key: operator.token, body: { name: "N" } })).status).toBe(
      403,
    );
    const byKey = await call("PATCH", path, { key: project.key, body: { name: "N" } });
    expect(byKey.body.error.code).toBe("user_token_required");
  });
});

describe("members", () => {
  it("keeps at least one owner, even against two concurrent demotions", async () => {
    const project = await aTenantWithKey();
    const second = await aMember(project.teamId, "owner");
    const path = (id: number) => `/v1/teams/${project.teamId}/members/${id}`;
    const [a, b] = await Promise.all([
      call("PATCH", path(project.ownerUserId), { key: second.token, body: { role: "admin" } }),
      call("PATCH", path(second.userId), { key: second.token, body: { role: "admin" } }),
    ]);
    // Whichever commits first wins. If the self-demotion lands first, the caller is an admin by
    // the time the other request takes the lock, and admins do not touch owners (403); otherwise
    // the self-demotion finds it would leave no owner (409 last_owner).
    const [won, lost] = [a, b].sort((x, y) => x.status - y.status);
    expect(won!.status).toBe(200);
    expect([403, 409]).toContain(lost!.status);
    if (lost!.status === 409) expect(lost!.body.error.code).toBe("last_owner");
    expect(await db().teamMember.count({ where: { teamId: project.teamId, role: "owner" } })).toBe(
      1,
    );
  });

  it("lets admins manage non-owners, members leave, and only owners touch owners", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const viewer = await aMember(project.teamId, "viewer");
    const base = `/v1/teams/${project.teamId}/members`;
    const listed = await call("GET", base, { key: viewer.token });
    expect(listed.body.data).toHaveLength(3);
    const one = await call("GET", `${base}/${admin.userId}`, { key: viewer.token });
    expect(one.body).toMatchObject({ user_id: admin.userId, role: "admin", email: admin.email });
    expect((await call("GET", `${base}/999999`, { key: viewer.token })).status).toBe(404);
    expect(
      (
        await call("PATCH", `${base}/${viewer.userId}`, {
          key: admin.token,
          body: { role: "operator" },
        })
      ).body.role,
    ).toBe("operator");
    expect(
      (
        await call("PATCH", `${base}/${viewer.userId}`, {
          key: admin.token,
          body: { role: "owner" },
        })
      ).status,
    ).toBe(403);
    expect(
      (await call("DELETE", `${base}/${project.ownerUserId}`, { key: admin.token })).status,
    ).toBe(403);
    expect((await call("DELETE", `${base}/${viewer.userId}`, { key: viewer.token })).status).toBe(
      200,
    );
    expect((await call("GET", base, { key: viewer.token })).status).toBe(404);
  });
});

describe("invites", () => {
  it("invite, list, accept as the invited person: they become a member with the role", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const invitee = await aUser();
    const created = await call("POST", `/v1/teams/${project.teamId}/invites`, {
      key: owner.token,
      body: { email: invitee.email.toUpperCase(), role: "operator" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email: invitee.email,
      role: "operator",
      status: "pending",
    });
    const pending = await call("POST", `/v1/teams/${project.teamId}/invites`, {
      key: owner.token,
      body: { email: invitee.email, role: "viewer" },
    });
    expect(pending.body.error.code).toBe("invite_pending");

    const mine = await call("GET", "/v1/me/invites", { key: invitee.token });
    expect(mine.body.data.map((i: { id: string }) => i.id)).toEqual([created.body.id]);
    const stranger = await aUser();
    expect(
      (await call("POST", `/v1/me/invites/${created.body.id}/accept`, { key: stranger.token }))
        .status,
    ).toBe(404);

    const accepted = await call("POST", `/v1/me/invites/${created.body.id}/accept`, {
      key: invitee.token,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe("accepted");
    const access = await call("GET", "/v1/access", { key: invitee.token });
    expect(access.body.tenants).toEqual([
      expect.objectContaining({ id: project.tenantId, roles: ["operator"] }),
    ]);
    const twice = await call("POST", `/v1/me/invites/${created.body.id}/accept`, {
      key: invitee.token,
    });
    expect(twice.body.error.code).toBe("invite_closed");
    const member = await call("POST", `/v1/teams/${project.teamId}/invites`, {
      key: owner.token,
      body: { email: invitee.email, role: "viewer" },
    });
    expect(member.body.error.code).toBe("already_member");
  });

  it("decline, revoke and expiry close invitations", async () => {
    const project = await aTenantWithKey();
    const admin = await aMember(project.teamId, "admin");
    const invite = async (email: string) =>
      (
        await call("POST", `/v1/teams/${project.teamId}/invites`, {
          key: admin.token,
          body: { email, role: "viewer" },
        })
      ).body;
    const a = await aUser();
    const inviteA = await invite(a.email);
    const declined = await call("POST", `/v1/me/invites/${inviteA.id}/decline`, { key: a.token });
    expect(declined.body.status).toBe("declined");
    expect(await db().teamMember.count({ where: { userId: a.userId } })).toBe(0);

    const b = await aUser();
    const inviteB = await invite(b.email);
    const revoked = await call("DELETE", `/v1/teams/${project.teamId}/invites/${inviteB.id}`, {
      key: admin.token,
    });
    expect(revoked.body.status).toBe("revoked");
    const read = await call("GET", `/v1/teams/${project.teamId}/invites/${inviteB.id}`, {
      key: admin.token,
    });
    expect(read.body).toMatchObject({ id: inviteB.id, status: "revoked", email: b.email });
    const afterRevoke = await call("POST", `/v1/me/invites/${inviteB.id}/accept`, { key: b.token });
    expect(afterRevoke.status).toBe(409);
    expect(afterRevoke.body.error.code).toBe("invite_closed");

    const c = await aUser();
    const inviteC = await invite(c.email);
    await db().invite.update({
      where: { id: inviteC.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await call("POST", `/v1/me/invites/${inviteC.id}/accept`, { key: c.token });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe("invite_expired");
    const all = await call("GET", `/v1/teams/${project.teamId}/invites?status=all`, {
      key: admin.token,
    });
    expect(
      Object.fromEntries(
        all.body.data.map((i: { id: string; status: string }) => [i.id, i.status]),
      ),
    ).toEqual({ [inviteA.id]: "declined", [inviteB.id]: "revoked", [inviteC.id]: "expired" });
    // An expired invitation no longer blocks a new one.
    expect(
      (
        await call("POST", `/v1/teams/${project.teamId}/invites`, {
          key: admin.token,
          body: { email: c.email, role: "viewer" },
        })
      ).status,
    ).toBe(201);
    const viewer = await aMember(project.teamId, "viewer");
    expect(
      (
        await call("POST", `/v1/teams/${project.teamId}/invites`, {
          key: viewer.token,
          body: { email: "x@example.com", role: "viewer" },
        })
      ).status,
    ).toBe(403);
  });
});
