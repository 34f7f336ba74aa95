import { describe, expect, it } from "vitest";
import { db } from "../db";
import { userCaller } from "../access/caller";
import { aTenantWithKey } from "../../testing/builders";
import { overTheWire } from "../../testing/console";
import { MAX_BODY_BYTES } from "../http/body";
import { ConsoleApiError } from "./init";
import { appRouter } from "./router";

async function ownerConsole() {
  const project = await aTenantWithKey();
  const user = await db().user.findUniqueOrThrow({ where: { id: project.ownerUserId } });
  return { project, trpc: appRouter.createCaller({ caller: userCaller(user) }) };
}

/** The API's own error, as the console receives it; never an internal error. */
async function apiError(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, String(error)).toBeInstanceOf(ConsoleApiError);
  return error as ConsoleApiError;
}

describe("the console's procedures meet bad input with the API's errors", () => {
  it("U+0000 in a body string or a path parameter: validation_failed naming it", async () => {
    const { project, trpc } = await ownerConsole();
    const body = await apiError(
      trpc.v1.createLocation({
        params: { tenant_id: project.tenantId },
        body: {
          name: "a\u0000b",
          address: { street: "1 Main St", city: "Austin", country: "US" },
          coordinates: { latitude: 30, longitude: -97 },
          time_zone: "America/Chicago",
        },
        idempotencyKey: "console-nul-0001",
      }),
    );
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.body).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "name" }] },
    });
    const path = await apiError(
      trpc.v1.getWebhook({ params: { tenant_id: project.tenantId, webhook_id: "wh\u0000" } }),
    );
    expect(path.body).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "webhook_id" }] },
    });
  });

  it("a body nested too deeply: invalid_json", async () => {
    const { project, trpc } = await ownerConsole();
    let deep: unknown = 1;
    for (let i = 0; i < 6000; i++) deep = [deep];
    const error = await apiError(
      trpc.v1.createTariff({
        params: { tenant_id: project.tenantId },
        body: { rules: deep },
        idempotencyKey: "console-deep-0001",
      }),
    );
    expect(error.body).toMatchObject({ code: "invalid_json", details: { max_depth: 64 } });
  });

  it("a body over /v1's size limit: payload_too_large, as /v1 answers it", async () => {
    const { project, trpc } = await ownerConsole();
    const error = await apiError(
      trpc.v1.createLocation({
        params: { tenant_id: project.tenantId },
        body: {
          name: "x".repeat(MAX_BODY_BYTES),
          address: { street: "1 Main St", city: "Austin", country: "US" },
          coordinates: { latitude: 30, longitude: -97 },
          time_zone: "America/Chicago",
        },
        idempotencyKey: "console-large-0001",
      }),
    );
    expect(error.body).toMatchObject({
      code: "payload_too_large",
      details: { max_bytes: MAX_BODY_BYTES },
    });
  });

  it("a path parameter that is missing or not well-formed text: validation_failed, not an internal error", async () => {
    const { project, trpc } = await ownerConsole();
    // what a tampered client could send, past the procedure's types
    const missing = await overTheWire(
      project.ownerUserId,
      "v1.getStation",
      { params: { tenant_id: project.tenantId } },
      "query",
    );
    expect(missing.apiError).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "station_id", location: "path" }] },
    });
    const surrogate = await apiError(
      trpc.v1.getWebhook({ params: { tenant_id: project.tenantId, webhook_id: "\ud800" } }),
    );
    expect(surrogate.body).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "webhook_id", location: "path" }] },
    });
  });

  it("an input that is not the procedure's envelope, or a query value no URL can carry: validation_failed naming it", async () => {
    const { project } = await ownerConsole();
    const send = (procedure: string, input: unknown) =>
      overTheWire(project.ownerUserId, procedure, input, "query");
    const objectPath = await send("v1.getStation", {
      params: { tenant_id: { id: project.tenantId }, station_id: 1 },
    });
    expect(objectPath.code).toBe("BAD_REQUEST");
    expect(objectPath.apiError).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "params.tenant_id", location: "path" }] },
    });
    const unknownPart = await send("v1.listStations", {
      params: { tenant_id: project.tenantId },
      headers: { authorization: "Bearer x" },
    });
    expect(unknownPart.apiError).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "headers", message: "is not a known part" }] },
    });
    const surrogate = await send("v1.listStations", {
      params: { tenant_id: project.tenantId },
      query: { name: "a\udc00" },
    });
    expect(surrogate.apiError).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "name", location: "query" }] },
    });
  });
});
