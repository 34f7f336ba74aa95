import { describe, expect, it } from "vitest";
import { allRoutes } from "../http/routes";
import { aLocationBody, aStation, aTenantWithKey } from "../../testing/builders";
import { consoleAs, overTheWire } from "../../testing/console";
import { aMember, aUser } from "../../testing/users";
import { ConsoleApiError } from "./init";
import { v1Procedures } from "./operations";
import { appRouter } from "./router";

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConsoleApiError);
  return error as ConsoleApiError;
}

describe("the console's tRPC procedures", () => {
  it("name real /v1 operations: reads are its GET routes, changes the others", () => {
    const methods = new Map(allRoutes.map((r) => [r.operationId, r.method]));
    for (const [name, procedure] of Object.entries(v1Procedures)) {
      expect(methods.has(name), name).toBe(true);
      expect(procedure._def.type, name).toBe(methods.get(name) === "GET" ? "query" : "mutation");
    }
  });

  it("give each role exactly its scopes: viewers read, operators command, outsiders see nothing", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const params = { tenant_id: project.tenantId, station_id: station.id };
    const viewer = await consoleAs((await aMember(project.teamId, "viewer")).userId);
    const operator = await consoleAs((await aMember(project.teamId, "operator")).userId);
    const outsider = await consoleAs((await aUser()).userId);

    const read = await viewer.v1.getStation({ params });
    expect(read.name).toBe(station.name);

    const command = { action: "reset", mode: "soft" } as const;
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
    const byOperator = await operator.v1.sendCommand({
      params,
      body: command,
      idempotencyKey: "operator-cmd-0001",
    });
    expect(byOperator).toMatchObject({ action: "reset", status: "rejected" });
    expect(byOperator.result).toMatchObject({ error: { code: "station_offline" } });

    const hidden = await refusal(outsider.v1.getStation({ params }));
    expect(hidden.code).toBe("NOT_FOUND");
  });

  it("carries the API's validation details and refuses a missing session", async () => {
    const project = await aTenantWithKey();
    const invalid = await overTheWire(
      project.ownerUserId,
      "v1.createLocation",
      { params: { tenant_id: project.tenantId }, body: { name: "" }, idempotencyKey: "loc-00001" },
      "mutation",
    );
    expect(invalid.code).toBe("BAD_REQUEST");
    expect(invalid.apiError?.code).toBe("validation_failed");
    expect(invalid.apiError?.details.fields).toEqual(expect.any(Array));

    const anonymous = appRouter.createCaller({ caller: null });
    expect((await refusal(anonymous.me())).code).toBe("UNAUTHORIZED");
    const owner = await consoleAs(project.ownerUserId);
    const me = await owner.me();
    expect(me.teams.map((t) => t.id)).toEqual([project.teamId]);
  });

  it("run the route in-process: the answer is the route's own, replayed under the same key", async () => {
    const project = await aTenantWithKey();
    const owner = await consoleAs(project.ownerUserId);
    const input = {
      params: { tenant_id: project.tenantId },
      body: aLocationBody(),
      idempotencyKey: "console-replay-0001",
    };
    const first = await owner.v1.createLocation(input);
    const again = await owner.v1.createLocation(input);
    expect(again).toEqual(first);
    const listed = await owner.v1.listLocations({ params: { tenant_id: project.tenantId } });
    expect(listed.data.map((l) => l.id)).toEqual([first.id]);
  });
});
