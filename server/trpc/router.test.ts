import { describe, expect, it } from "vitest";
import { db } from "../db";
import { userCaller } from "../access/caller";
import { aStation, aTenantWithKey } from "../testing/builders";
import { aMember, aUser } from "../testing/users";
import { allRoutes } from "../http/routes";
import { ConsoleApiError } from "./init";
import { CONSOLE_MUTATIONS, CONSOLE_QUERIES } from "./operations";
import { appRouter } from "./router";

async function consoleAs(userId: number) {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId } });
  return appRouter.createCaller({ caller: userCaller(user) });
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConsoleApiError);
  return error as ConsoleApiError;
}

describe("the console's tRPC procedures", () => {
  it("name real /v1 operations", () => {
    const ids = new Set(allRoutes.map((r) => r.operationId));
    for (const op of [...CONSOLE_QUERIES, ...CONSOLE_MUTATIONS]) expect(ids.has(op), op).toBe(true);
  });

  it("give each role exactly its scopes: viewers read, operators command, outsiders see nothing", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const params = { tenant_id: project.tenantId, station_id: station.id };
    const viewer = await consoleAs((await aMember(project.teamId, "viewer")).userId);
    const operator = await consoleAs((await aMember(project.teamId, "operator")).userId);
    const outsider = await consoleAs((await aUser()).userId);

    const read = (await viewer.v1.getStation({ params })) as { name: string };
    expect(read.name).toBe(station.name);

    const command = { action: "reset", mode: "soft" };
    const byViewer = await refusal(
      viewer.v1.sendCommand({ params, body: command, idempotencyKey: "viewer-cmd-0001" }),
    );
    expect(byViewer.code).toBe("FORBIDDEN");
    expect(byViewer.body.code).toBe("insufficient_scope");
    const register = await refusal(
      operator.v1.registerStation({
        params: { tenant_id: project.tenantId },
        body: { name: "X-1", location_id: 1, connector_count: 1 },
        idempotencyKey: "operator-reg-0001",
      }),
    );
    expect(register.body.details).toMatchObject({ missing_scopes: ["stations:write"] });

    // The operator's command passes the scope check and meets the station's state.
    const byOperator = (await operator.v1.sendCommand({
      params,
      body: command,
      idempotencyKey: "operator-cmd-0001",
    })) as { action: string; status: string; result: { error?: { code: string } } | null };
    expect(byOperator).toMatchObject({ action: "reset", status: "rejected" });
    expect(byOperator.result?.error?.code).toBe("station_offline");

    const hidden = await refusal(outsider.v1.getStation({ params }));
    expect(hidden.code).toBe("NOT_FOUND");
  });

  it("carries the API's validation details and refuses a missing session", async () => {
    const project = await aTenantWithKey();
    const owner = await consoleAs(project.ownerUserId);
    const invalid = await refusal(
      owner.v1.createLocation({
        params: { tenant_id: project.tenantId },
        body: { name: "" },
        idempotencyKey: "owner-loc-00001",
      }),
    );
    expect(invalid.code).toBe("BAD_REQUEST");
    expect(invalid.body.code).toBe("validation_failed");
    expect(invalid.body.details.fields).toEqual(expect.any(Array));

    const anonymous = appRouter.createCaller({ caller: null });
    expect((await refusal(anonymous.me())).code).toBe("UNAUTHORIZED");
    const me = (await owner.me()) as { teams: { id: number }[] };
    expect(me.teams.map((t) => t.id)).toEqual([project.teamId]);
  });
});
