import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import { ROLE_SCOPES, TEAM_ROLES, type TeamRole } from "../access/roles";
import { call, idem } from "../../testing/api";
import { aLocationBody, aStation, aTenantWithKey } from "../../testing/builders";
import { callerOf, consoleAs } from "../../testing/console";
import { aMember, aUser, type TestUser } from "../../testing/users";
import { ConsoleApiError } from "./init";
import type { ConsoleOperation } from "./operations";
import { appRouter } from "./router";

/**
 * The console runs each /v1 operation as the signed-in person, so a person gets the same answer
 * from a console button as from /v1 with their own access token: these tests hold it to that.
 */

/** A console call's outcome in /v1 terms: "ok", or the spec's error code. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ConsoleApiError) return error.body.code;
    throw error;
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

type Console = Awaited<ReturnType<typeof consoleAs>>;

type Probe = {
  scope: string;
  op: ConsoleOperation;
  method: string;
  path: string;
  body?: unknown;
  /** the same operation through the console, `key` its Idempotency-Key where it takes one */
  viaConsole: (console: Console, key: string) => Promise<unknown>;
};

function probesFor(tenantId: number, stationId: number): Probe[] {
  const t = `/v1/tenants/${tenantId}`;
  const params = { tenant_id: tenantId };
  const station = { tenant_id: tenantId, station_id: stationId };
  const location = aLocationBody();
  const command = { action: "reset", mode: "soft" } as const;
  const tariff = { rate_minor_per_kwh: 30 };
  const webhook = { url: "https://hooks.example.com/console", events: ["webhook.test" as const] };
  return [
    {
      scope: "stations:read",
      op: "listStations",
      method: "GET",
      path: `${t}/stations`,
      viaConsole: (c) => c.v1.listStations({ params }),
    },
    {
      scope: "stations:read",
      op: "getStation",
      method: "GET",
      path: `${t}/stations/${stationId}`,
      viaConsole: (c) => c.v1.getStation({ params: station }),
    },
    {
      scope: "stations:write",
      op: "createLocation",
      method: "POST",
      path: `${t}/locations`,
      body: location,
      viaConsole: (c, key) => c.v1.createLocation({ params, body: location, idempotencyKey: key }),
    },
    {
      scope: "stations:control",
      op: "sendCommand",
      method: "POST",
      path: `${t}/stations/${stationId}/commands`,
      body: command,
      viaConsole: (c, key) =>
        c.v1.sendCommand({ params: station, body: command, idempotencyKey: key }),
    },
    {
      scope: "billing:read",
      op: "listTariffs",
      method: "GET",
      path: `${t}/tariffs`,
      viaConsole: (c) => c.v1.listTariffs({ params }),
    },
    {
      scope: "billing:write",
      op: "createTariff",
      method: "POST",
      path: `${t}/tariffs`,
      body: tariff,
      viaConsole: (c, key) => c.v1.createTariff({ params, body: tariff, idempotencyKey: key }),
    },
    {
      scope: "webhooks:read",
      op: "listWebhooks",
      method: "GET",
      path: `${t}/webhooks`,
      viaConsole: (c) => c.v1.listWebhooks({ params }),
    },
    {
      scope: "webhooks:write",
      op: "createWebhook",
      method: "POST",
      path: `${t}/webhooks`,
      body: webhook,
      viaConsole: (c) => c.v1.createWebhook({ params, body: webhook }),
    },
  ];
}

async function viaConsole(person: TestUser, probe: Probe) {
  return outcome(probe.viaConsole(await consoleAs(person.userId), idem()));
}

async function viaApi(person: TestUser, probe: Probe) {
  const res = await call(probe.method, probe.path, {
    key: person.token,
    body: probe.body,
    idempotencyKey: probe.method === "GET" ? undefined : idem(),
  });
  return res.status < 300 ? "ok" : String((res.body as { error: { code: string } }).error.code);
}

describe("the console and /v1 give each person the same answer", () => {
  it("for every team role, a non-member and platform support, on one operation per scope", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const probes = probesFor(project.tenantId, station.id);
    const people: [string, TestUser][] = [];
    for (const role of TEAM_ROLES) people.push([role, await aMember(project.teamId, role)]);
    people.push(["outsider", await aUser()]);
    people.push(["platform-support", await aUser({ platformRole: "platform-support" })]);

    const consoleMatrix: Record<string, Record<string, string>> = {};
    const apiMatrix: Record<string, Record<string, string>> = {};
    for (const [who, person] of people) {
      consoleMatrix[who] = {};
      apiMatrix[who] = {};
      for (const probe of probes) {
        consoleMatrix[who][probe.op] = await viaConsole(person, probe);
        apiMatrix[who][probe.op] = await viaApi(person, probe);
      }
    }
    expect(consoleMatrix).toEqual(apiMatrix);

    // And the answers are the roles' scopes: allowed exactly when granted, else 403; a
    // non-member sees no such tenant.
    for (const role of TEAM_ROLES) {
      for (const probe of probes) {
        const granted = (ROLE_SCOPES[role] as readonly string[]).includes(probe.scope);
        expect(consoleMatrix[role]![probe.op], `${role} ${probe.op}`).toBe(
          granted ? "ok" : "insufficient_scope",
        );
      }
    }
    expect(Object.values(consoleMatrix.outsider!).every((c) => c === "not_found")).toBe(true);
    expect(consoleMatrix["platform-support"]).toMatchObject({
      listStations: "ok",
      sendCommand: "insufficient_scope",
    });
  });
});

describe("the console's refusals", () => {
  it("a viewer reads stations but cannot register one, command it or add a webhook", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const viewer = await consoleAs((await aMember(project.teamId, "viewer")).userId);
    const params = { tenant_id: project.tenantId };

    const list = await viewer.v1.listStations({ params });
    expect(list.data.map((s) => s.id)).toEqual([station.id]);

    const cases: [() => Promise<unknown>, string][] = [
      [
        () =>
          viewer.v1.registerStation({
            params,
            body: { name: "VIEWER-1", location_id: 1, connector_count: 1 },
            idempotencyKey: idem(),
          }),
        "stations:write",
      ],
      [
        () =>
          viewer.v1.sendCommand({
            params: { ...params, station_id: station.id },
            body: { action: "unlock", connector_id: station.connectors[0]!.id },
            idempotencyKey: idem(),
          }),
        "stations:control",
      ],
      [
        () =>
          viewer.v1.createWebhook({
            params,
            body: { url: "https://hooks.example.com/viewer", events: ["webhook.test" as const] },
          }),
        "webhooks:write",
      ],
    ];
    for (const [attempt, scope] of cases) {
      const error = await refusal(attempt());
      expect(error.code).toBe("FORBIDDEN");
      expect(error.body).toMatchObject({
        code: "insufficient_scope",
        details: { missing_scopes: [scope] },
      });
    }
  });

  it("a member of one team finds nothing of another team's project", async () => {
    const mine = await aTenantWithKey();
    const theirs = await aTenantWithKey();
    const station = await aStation(theirs.tenantId, theirs.key);
    const me = await consoleAs((await aMember(mine.teamId, "owner")).userId);

    const params = { tenant_id: theirs.tenantId, station_id: station.id };
    for (const attempt of [
      () => me.v1.getStation({ params }),
      () => me.v1.listStations({ params: { tenant_id: theirs.tenantId } }),
      () =>
        me.v1.sendCommand({
          params,
          body: { action: "reset", mode: "soft" },
          idempotencyKey: idem(),
        }),
    ]) {
      const error = await refusal(attempt());
      expect(error.code).toBe("NOT_FOUND");
      expect(error.body).toMatchObject({ code: "not_found", details: { resource: "tenant" } });
    }
    const context = await me.me();
    expect(context.teams.flatMap((t) => t.projects.map((p) => p.id))).toEqual([mine.tenantId]);
  });

  it("validation failures keep the API's code and per-field details", async () => {
    const project = await aTenantWithKey();
    const owner = await consoleAs(project.ownerUserId);
    const params = { tenant_id: project.tenantId };

    const station = await refusal(
      owner.v1.registerStation({
        params,
        body: { name: "has spaces", location_id: 1, connector_count: 0 },
        idempotencyKey: idem(),
      }),
    );
    expect(station.code).toBe("BAD_REQUEST");
    expect(station.body.code).toBe("validation_failed");
    const fields = (station.body.details.fields as { field: string }[]).map((f) => f.field);
    expect(fields).toEqual(expect.arrayContaining(["name", "connector_count"]));

    const tariff = await refusal(
      owner.v1.createTariff({
        params,
        body: { elements: [{ price_components: [{ type: "ENERGY", price: -1, step_size: 1 }] }] },
      }),
    );
    expect(tariff.code).toBe("BAD_REQUEST");
    expect(tariff.body.code).toBe("tariff_invalid");
    expect(tariff.body.details.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: expect.stringMatching(/^elements\.0\.price_components/) }),
      ]),
    );
  });
});

describe("the console's context", () => {
  it("lists each team with the person's role and their scopes in each project", async () => {
    const project = await aTenantWithKey();
    const roles: TeamRole[] = ["operator", "viewer", "billing"];
    for (const role of roles) {
      const person = await consoleAs((await aMember(project.teamId, role)).userId);
      const context = await person.me();
      expect(context.teams).toEqual([
        {
          id: project.teamId,
          name: expect.any(String) as string,
          role,
          projects: [
            {
              id: project.tenantId,
              name: expect.any(String) as string,
              scopes: [...ROLE_SCOPES[role]],
            },
          ],
        },
      ]);
    }
  });

  it("gives a project's standing as /v1 judges it, platform staff outside the team included", async () => {
    const project = await aTenantWithKey();
    const standing = async (userId: number) =>
      (await consoleAs(userId)).project({ tenant_id: project.tenantId });

    const operator = await aMember(project.teamId, "operator");
    expect(await standing(operator.userId)).toMatchObject({
      tenant_id: project.tenantId,
      team: { id: project.teamId },
      role: "operator",
      platform_role: null,
      scopes: [...ROLE_SCOPES.operator].sort(),
      can: { manage_team: false, read_team: false, manage_project_keys: false },
    });
    const developer = await aMember(project.teamId, "developer");
    expect((await standing(developer.userId)).can).toEqual({
      manage_team: false,
      read_team: false,
      manage_project_keys: true,
    });
    // Staff are in no team here: `me` lists nothing, but their platform role reaches the project.
    // Platform admins act as team admins; platform support reads.
    const staffCan = {
      "platform-admin": { manage_team: true, read_team: true, manage_project_keys: true },
      "platform-support": { manage_team: false, read_team: true, manage_project_keys: false },
    };
    for (const role of ["platform-admin", "platform-support"] as const) {
      const staff = await aUser({ platformRole: role });
      expect((await (await consoleAs(staff.userId)).me()).teams).toEqual([]);
      expect(await standing(staff.userId)).toMatchObject({
        role: null,
        platform_role: role,
        scopes: [...ROLE_SCOPES[role]].sort(),
        can: staffCan[role],
      });
      // What `can` says matches what /v1 does: listing the project's keys.
      const keys = await call("GET", `/v1/tenants/${project.tenantId}/api-keys`, {
        key: staff.token,
      });
      expect(keys.status).toBe(staffCan[role].manage_project_keys ? 200 : 403);
    }
    // Someone from elsewhere, and a project that does not exist, get /v1's 404 `not_found`.
    const outsider = await aUser();
    expect((await refusal(standing(outsider.userId))).body.code).toBe("not_found");
    const nobody = await consoleAs(operator.userId);
    const missing = await refusal(nobody.project({ tenant_id: 2_000_000_000 }));
    expect(missing.code).toBe("NOT_FOUND");
  });
});

describe("the /api/trpc wire format", () => {
  const handle = async (userId: number | null, path: string, init: RequestInit = {}) => {
    const caller = userId === null ? null : await callerOf(userId);
    const res = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request(`http://console.test/api/trpc/${path}`, init),
      router: appRouter,
      createContext: () => ({ caller }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("sends the API's code, message and details in error.data.apiError, without a stack", async () => {
    const project = await aTenantWithKey();
    const viewer = await aMember(project.teamId, "viewer");
    const res = await handle(viewer.userId, "v1.createLocation", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        params: { tenant_id: project.tenantId },
        body: aLocationBody(),
        idempotencyKey: idem(),
      }),
    });
    expect(res.status).toBe(403);
    const error = res.body.error as { message: string; data: Record<string, unknown> };
    expect(error.data).toMatchObject({
      code: "FORBIDDEN",
      httpStatus: 403,
      apiError: {
        code: "insufficient_scope",
        message: error.message,
        details: { missing_scopes: ["stations:write"] },
      },
    });
    expect(error.data.stack).toBeUndefined();

    const anonymous = await handle(null, "me");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({
      error: { data: { code: "UNAUTHORIZED", apiError: { code: "unauthenticated" } } },
    });
  });

  it("answers a batched read for a signed-in person", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const operator = await aMember(project.teamId, "operator");
    const input = encodeURIComponent(
      JSON.stringify({
        0: {},
        1: { params: { tenant_id: project.tenantId, station_id: station.id } },
      }),
    );
    const res = await handle(operator.userId, `me,v1.getStation?batch=1&input=${input}`);
    expect(res.status).toBe(200);
    const [me, got] = res.body as unknown as { result: { data: Record<string, unknown> } }[];
    expect(me?.result.data).toMatchObject({ user: { id: operator.userId } });
    expect(got?.result.data).toMatchObject({ id: station.id, name: station.name });
  });
});
