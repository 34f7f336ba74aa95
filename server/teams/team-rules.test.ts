import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";

const counts = async () => ({
  teams: await db().team.count(),
  tenants: await db().tenant.count(),
  members: await db().teamMember.count(),
});

const invitePath = (teamId: number) => `/v1/teams/${teamId}/invites`;

describe("POST /v1/me/tenant", () => {
  it("refuses a platform role alone and creates nothing", async () => {
    const staff = await aUser({ platformRole: "platform-admin" });
    const before = await counts();
    const res = await call("POST", "/v1/me/tenant", { key: staff.token });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("no_grant");
    expect(await counts()).toEqual(before);
  });

  it("a viewer of a team without projects gets no_grant and nothing is created", async () => {
    const owner = await aUser();
    const team = await call("POST", "/v1/workspace", { key: owner.token, body: { name: "Empty" } });
    const viewer = await aMember(team.body.id, "viewer");
    const before = await counts();
    const answers = await Promise.all(
      [1, 2, 3].map(() => call("POST", "/v1/me/tenant", { key: viewer.token })),
    );
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("no_grant");
    }
    expect(await counts()).toEqual(before);
  });

  it("answers the oldest project of the oldest team, with the caller's roles and scopes there", async () => {
    const older = await aTenantWithKey();
    const person = await aUser();
    // The person first gets their own workspace, then joins the older team.
    await call("POST", "/v1/workspace", { key: person.token, body: { name: "Own" } });
    await db().teamMember.create({
      data: { teamId: older.teamId, userId: person.userId, role: "operator" },
    });
    await db().tenant.create({ data: { teamId: older.teamId, name: "Newer project" } });
    const before = await counts();
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => call("POST", "/v1/me/tenant", { key: person.token })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    for (const res of answers) {
      expect(res.body.tenant).toMatchObject({ id: older.tenantId, team_id: older.teamId });
      expect(res.body.roles).toEqual(["operator"]);
      expect(res.body.scopes).toContain("stations:control");
      expect(res.body.scopes).not.toContain("stations:write");
    }
    expect(await counts()).toEqual(before);
  });

  it("a body or an API key is refused", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const withBody = await call("POST", "/v1/me/tenant", {
      key: owner.token,
      body: { tenant_id: project.tenantId },
    });
    expect(withBody.status).toBe(422);
    expect(withBody.body.error.code).toBe("validation_failed");
    const byKey = await call("POST", "/v1/me/tenant", { key: project.key });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("user_token_required");
  });
});

describe("routes for people refuse API keys", () => {
  it("answers 403 user_token_required on every user route", async () => {
    const project = await aTenantWithKey();
    const routes: [string, string, unknown?][] = [
      ["GET", "/v1/me/teams"],
      ["GET", "/v1/me/invites"],
      ["POST", "/v1/me/invites/inv_abc/accept"],
      ["POST", "/v1/me/invites/inv_abc/decline"],
      ["POST", "/v1/workspace", { name: "W" }],
      ["GET", `/v1/teams/${project.teamId}/projects`],
      ["POST", `/v1/teams/${project.teamId}/projects`, { name: "P" }],
      ["GET", `/v1/teams/${project.teamId}/members`],
      ["PATCH", `/v1/teams/${project.teamId}/members/${project.ownerUserId}`, { role: "admin" }],
      ["DELETE", `/v1/teams/${project.teamId}/members/${project.ownerUserId}`],
      ["GET", invitePath(project.teamId)],
      ["POST", invitePath(project.teamId), { email: "a@example.com", role: "viewer" }],
      ["PATCH", `/v1/tenants/${project.tenantId}`, { name: "N" }],
      ["GET", "/v1/api-keys"],
      ["POST", "/v1/api-keys", { scopes: ["stations:read"], tenant_id: project.tenantId }],
      ["GET", `/v1/tenants/${project.tenantId}/api-keys`],
      ["POST", `/v1/tenants/${project.tenantId}/api-keys`, { scopes: ["stations:read"] }],
      ["DELETE", `/v1/tenants/${project.tenantId}/api-keys/${project.keyId}`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(method, path, { key: project.key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code, `${method} ${path}`).toBe("user_token_required");
    }
    // The key's tenant is untouched, and the key still reads it.
    expect(
      (await call("GET", `/v1/tenants/${project.tenantId}`, { key: project.key })).status,
    ).toBe(200);
  });
});

describe("context", () => {
  it("GET /v1/me counts pending invitations; /v1/me/teams lists teams with role and projects", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const person = await aUser();
    await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: person.email, role: "viewer" },
    });
    const me = await call("GET", "/v1/me", { key: person.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      kind: "user",
      user: {
        id: person.userId,
        email: person.email,
        name: expect.any(String),
        platform_role: null,
      },
      api_key: null,
      workspace: null,
      scopes: [],
      teams: [],
      pending_invites: 1,
    });
    const teams = await call("GET", "/v1/me/teams", { key: owner.token });
    expect(teams.body.data).toEqual([
      expect.objectContaining({
        id: project.teamId,
        role: "owner",
        projects: [expect.objectContaining({ id: project.tenantId })],
      }),
    ]);
  });
});

describe("teams: who may do what", () => {
  it("non-members get the same 404 as for an unknown team", async () => {
    const project = await aTenantWithKey();
    const outsider = await aUser();
    const unknown = 2_000_000_000;
    for (const teamId of [project.teamId, unknown]) {
      for (const [method, path, body] of [
        ["GET", `/v1/teams/${teamId}/projects`],
        ["POST", `/v1/teams/${teamId}/projects`, { name: "X" }],
        ["GET", `/v1/teams/${teamId}/members`],
        ["PATCH", `/v1/teams/${teamId}/members/${project.ownerUserId}`, { role: "admin" }],
        ["DELETE", `/v1/teams/${teamId}/members/${project.ownerUserId}`],
        ["GET", invitePath(teamId)],
        ["POST", invitePath(teamId), { email: "b@example.com", role: "viewer" }],
        ["DELETE", `${invitePath(teamId)}/inv_abc`],
      ] as [string, string, unknown?][]) {
        const res = await call(method, path, { key: outsider.token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error.code).toBe("not_found");
        expect(res.body.error.details).toEqual({ resource: "team" });
      }
    }
    const tenant = await call("GET", `/v1/tenants/${project.tenantId}`, { key: outsider.token });
    expect(tenant.status).toBe(404);
  });

  it("platform admins act as admins on any team; platform support reads only", async () => {
    const project = await aTenantWithKey();
    const admin = await aUser({ platformRole: "platform-admin" });
    const support = await aUser({ platformRole: "platform-support" });
    const created = await call("POST", `/v1/teams/${project.teamId}/projects`, {
      key: admin.token,
      body: { name: "Staff made" },
    });
    expect(created.status).toBe(201);
    const invited = await call("POST", invitePath(project.teamId), {
      key: admin.token,
      body: { email: `staff-invite-${Date.now()}@example.com`, role: "viewer" },
    });
    expect(invited.status).toBe(201);

    for (const path of [
      `/v1/teams/${project.teamId}/projects`,
      `/v1/teams/${project.teamId}/members`,
      invitePath(project.teamId),
      `${invitePath(project.teamId)}/${invited.body.id}`,
      `/v1/tenants/${project.tenantId}`,
    ]) {
      expect((await call("GET", path, { key: support.token })).status, path).toBe(200);
    }
    for (const [method, path, body] of [
      ["POST", `/v1/teams/${project.teamId}/projects`, { name: "Support made" }],
      ["POST", invitePath(project.teamId), { email: "c@example.com", role: "viewer" }],
      ["PATCH", `/v1/teams/${project.teamId}/members/${project.ownerUserId}`, { role: "admin" }],
      ["DELETE", `${invitePath(project.teamId)}/${invited.body.id}`],
      ["PATCH", `/v1/tenants/${project.tenantId}`, { name: "Support renamed" }],
    ] as [string, string, unknown?][]) {
      const res = await call(method, path, { key: support.token, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
  });

  it("PATCH /v1/tenants/{id}: unique names per team, known modes, owners and admins only", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const dev = await aMember(project.teamId, "developer");
    await db().tenant.create({ data: { teamId: project.teamId, name: "Taken" } });
    const path = `/v1/tenants/${project.tenantId}`;
    const taken = await call("PATCH", path, { key: owner.token, body: { name: "Taken" } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("project_name_taken");
    const mode = await call("PATCH", path, {
      key: owner.token,
      body: { authorization_mode: "everyone" },
    });
    expect(mode.status).toBe(422);
    expect(mode.body.error.code).toBe("validation_failed");
    const extra = await call("PATCH", path, { key: owner.token, body: { team_id: 1 } });
    expect(extra.status).toBe(422);
    const byDev = await call("PATCH", path, { key: dev.token, body: { name: "Dev" } });
    expect(byDev.status).toBe(403);
    expect(byDev.body.error.code).toBe("forbidden");
    const read = await call("GET", path, { key: dev.token });
    expect(read.body).toEqual({
      id: project.tenantId,
      name: expect.any(String),
      team_id: project.teamId,
      authorization_mode: "accept_all",
      default_hold_minor: 5000,
      hold_margin_minor: 100,
      created_at: expect.any(String),
    });
  });

  it("concurrent project creations stop at the limit of 20", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    await db().tenant.createMany({
      data: Array.from({ length: 18 }, (_, i) => ({ teamId: project.teamId, name: `Q${i}` })),
    });
    const answers = await Promise.all(
      [1, 2, 3].map((i) =>
        call("POST", `/v1/teams/${project.teamId}/projects`, {
          key: owner.token,
          body: { name: `Race ${i}` },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    for (const res of answers.filter((a) => a.status === 409)) {
      expect(res.body.error.code).toBe("project_limit");
    }
    expect(await db().tenant.count({ where: { teamId: project.teamId } })).toBe(20);
  });
});

describe("members", () => {
  it("the last owner can neither step down nor leave; with a second owner they can", async () => {
    const owner = await aUser();
    const team = await call("POST", "/v1/workspace", { key: owner.token, body: { name: "Solo" } });
    const me = `/v1/teams/${team.body.id}/members/${owner.userId}`;
    const demote = await call("PATCH", me, { key: owner.token, body: { role: "admin" } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe("last_owner");
    const leave = await call("DELETE", me, { key: owner.token });
    expect(leave.status).toBe(409);
    expect(leave.body.error.code).toBe("last_owner");

    const second = await aMember(team.body.id, "owner");
    expect((await call("DELETE", me, { key: owner.token })).status).toBe(200);
    expect(
      await db().teamMember.count({ where: { teamId: team.body.id, userId: owner.userId } }),
    ).toBe(0);
    // The second owner is now the last one.
    const again = await call("DELETE", `/v1/teams/${team.body.id}/members/${second.userId}`, {
      key: second.token,
    });
    expect(again.body.error.code).toBe("last_owner");
  });

  it("two concurrent owner removals leave one owner", async () => {
    const project = await aTenantWithKey();
    const second = await aMember(project.teamId, "owner");
    const base = `/v1/teams/${project.teamId}/members`;
    const [a, b] = await Promise.all([
      call("DELETE", `${base}/${project.ownerUserId}`, { key: second.token }),
      call("DELETE", `${base}/${second.userId}`, { key: second.token }),
    ]);
    // Whichever commits first wins. If the self-removal lands first, the caller is no longer a
    // member and its other request is refused as an outsider (404); otherwise the self-removal
    // finds it would leave no owner (409 last_owner).
    const [won, lost] = [a, b].sort((x, y) => x.status - y.status);
    expect(won!.status).toBe(200);
    expect([404, 409]).toContain(lost!.status);
    if (lost!.status === 409) expect(lost!.body.error.code).toBe("last_owner");
    expect(await db().teamMember.count({ where: { teamId: project.teamId, role: "owner" } })).toBe(
      1,
    );
  });

  it("only owners grant the owner role; members other than managers cannot remove others", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const admin = await aMember(project.teamId, "admin");
    const dev = await aMember(project.teamId, "developer");
    const viewer = await aMember(project.teamId, "viewer");
    const base = `/v1/teams/${project.teamId}/members`;
    const byAdmin = await call("PATCH", `${base}/${dev.userId}`, {
      key: admin.token,
      body: { role: "owner" },
    });
    expect(byAdmin.body.error.code).toBe("forbidden");
    const byOwner = await call("PATCH", `${base}/${dev.userId}`, {
      key: owner.token,
      body: { role: "owner" },
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toEqual({
      user_id: dev.userId,
      email: dev.email,
      name: expect.any(String),
      role: "owner",
      joined_at: expect.any(String),
    });
    const byViewer = await call("DELETE", `${base}/${admin.userId}`, { key: viewer.token });
    expect(byViewer.status).toBe(403);
    const badRole = await call("PATCH", `${base}/${viewer.userId}`, {
      key: owner.token,
      body: { role: "superuser" },
    });
    expect(badRole.status).toBe(422);
    const unknown = await call("PATCH", `${base}/2000000000`, {
      key: owner.token,
      body: { role: "viewer" },
    });
    expect(unknown.status).toBe(404);
  });
});

describe("invitations", () => {
  it("accepting while already a member: 409 already_member, and the invitation is closed", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const person = await aUser();
    const invite = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: person.email, role: "admin" },
    });
    expect(invite.status).toBe(201);
    // They joined meanwhile by another way.
    await db().teamMember.create({
      data: { teamId: project.teamId, userId: person.userId, role: "viewer" },
    });
    const res = await call("POST", `/v1/me/invites/${invite.body.id}/accept`, {
      key: person.token,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("already_member");
    const stored = await db().invite.findUniqueOrThrow({ where: { id: invite.body.id } });
    expect(stored.status).not.toBe("pending");
    const member = await db().teamMember.findUniqueOrThrow({
      where: { teamId_userId: { teamId: project.teamId, userId: person.userId } },
    });
    expect(member.role).toBe("viewer");
    expect((await call("GET", "/v1/me/invites", { key: person.token })).body.data).toEqual([]);
    const again = await call("POST", `/v1/me/invites/${invite.body.id}/accept`, {
      key: person.token,
    });
    expect(again.body.error.code).toBe("invite_closed");
  });

  it("creates a 7-day invitation; only owners invite owners; concurrent invitations create one", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const admin = await aMember(project.teamId, "admin");
    const email = `race-${Date.now()}@example.com`;
    const byAdmin = await call("POST", invitePath(project.teamId), {
      key: admin.token,
      body: { email, role: "owner" },
    });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error.code).toBe("forbidden");

    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        call("POST", invitePath(project.teamId), {
          key: owner.token,
          body: { email, role: "owner" },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    for (const res of answers.filter((a) => a.status === 409)) {
      expect(res.body.error.code).toBe("invite_pending");
    }
    const created = answers.find((a) => a.status === 201)!.body;
    expect(created).toMatchObject({
      team_id: project.teamId,
      email,
      role: "owner",
      status: "pending",
    });
    expect(created.id).toMatch(/^inv_/);
    const ttl = Date.parse(created.expires_at) - Date.parse(created.created_at);
    expect(Math.abs(ttl - 7 * 86_400_000)).toBeLessThan(5_000);

    const memberEmail = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: admin.email.toUpperCase(), role: "viewer" },
    });
    expect(memberEmail.status).toBe(409);
    expect(memberEmail.body.error.code).toBe("already_member");
    const badEmail = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: "not-an-email", role: "viewer" },
    });
    expect(badEmail.status).toBe(422);
  });

  it("revoking a closed invitation, and answering a declined one: 409 invite_closed", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const person = await aUser();
    const invite = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: person.email, role: "developer" },
    });
    const declined = await call("POST", `/v1/me/invites/${invite.body.id}/decline`, {
      key: person.token,
    });
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe("declined");
    const accept = await call("POST", `/v1/me/invites/${invite.body.id}/accept`, {
      key: person.token,
    });
    expect(accept.status).toBe(409);
    expect(accept.body.error.code).toBe("invite_closed");
    const revoke = await call("DELETE", `${invitePath(project.teamId)}/${invite.body.id}`, {
      key: owner.token,
    });
    expect(revoke.status).toBe(409);
    expect(revoke.body.error.code).toBe("invite_closed");

    const second = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: person.email, role: "developer" },
    });
    expect(second.status).toBe(201);
    expect(
      (
        await call("DELETE", `${invitePath(project.teamId)}/${second.body.id}`, {
          key: owner.token,
        })
      ).body.status,
    ).toBe("revoked");
    const twice = await call("DELETE", `${invitePath(project.teamId)}/${second.body.id}`, {
      key: owner.token,
    });
    expect(twice.body.error.code).toBe("invite_closed");
    const pendingOnly = await call("GET", invitePath(project.teamId), { key: owner.token });
    expect(pendingOnly.body.data).toEqual([]);
  });

  it("an expired invitation is not listed, cannot be accepted or declined, and reads as expired", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const person = await aUser();
    const invite = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: person.email, role: "viewer" },
    });
    await db().invite.update({
      where: { id: invite.body.id },
      data: { expiresAt: new Date(Date.now() - 60_000) },
    });
    expect((await call("GET", "/v1/me/invites", { key: person.token })).body.data).toEqual([]);
    expect((await call("GET", "/v1/me", { key: person.token })).body.pending_invites).toBe(0);
    for (const answer of ["accept", "decline"]) {
      const res = await call("POST", `/v1/me/invites/${invite.body.id}/${answer}`, {
        key: person.token,
      });
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe("invite_expired");
    }
    expect(await db().teamMember.count({ where: { userId: person.userId } })).toBe(0);
    const read = await call("GET", `${invitePath(project.teamId)}/${invite.body.id}`, {
      key: owner.token,
    });
    expect(read.body.status).toBe("expired");
  });

  it("accepting makes the person a member with the invitation's role", async () => {
    const project = await aTenantWithKey();
    const owner = await aMember(project.teamId, "owner");
    const person = await aUser();
    const invite = await call("POST", invitePath(project.teamId), {
      key: owner.token,
      body: { email: person.email, role: "developer" },
    });
    const bad = await call("POST", "/v1/me/invites/not-an-id/accept", { key: person.token });
    expect(bad.status).toBe(422);
    const unknown = await call("POST", "/v1/me/invites/inv_doesnotexist/accept", {
      key: person.token,
    });
    expect(unknown.status).toBe(404);
    const accepted = await call("POST", `/v1/me/invites/${invite.body.id}/accept`, {
      key: person.token,
    });
    expect(accepted.status).toBe(200);
    const members = await call("GET", `/v1/teams/${project.teamId}/members`, { key: person.token });
    expect(members.body.data).toContainEqual(
      expect.objectContaining({ user_id: person.userId, role: "developer" }),
    );
    const tenant = await call("POST", "/v1/me/tenant", { key: person.token });
    expect(tenant.body.tenant.id).toBe(project.tenantId);
    expect(tenant.body.roles).toEqual(["developer"]);
  });
});
