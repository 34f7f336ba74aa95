import { describe, expect, it } from "vitest";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { consoleAs } from "../../testing/console";
import { aMember } from "../../testing/users";
import { ConsoleApiError } from "./init";

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConsoleApiError);
  return (error as ConsoleApiError).body;
}

describe("the console's configuration tab", () => {
  it("is guarded as the API guards it: protected keys need stations:admin, connection keys a confirmation", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const params = { tenant_id: project.tenantId, station_id: station.id };
    const operator = await consoleAs((await aMember(project.teamId, "operator")).userId);
    const owner = await consoleAs(project.ownerUserId);
    const change = (who: typeof owner, key: string, n: number, confirm?: boolean) =>
      who.v1.changeStationConfiguration({
        params,
        body: {
          changes: [{ key, value: "1" }],
          ...(confirm === undefined ? {} : { confirm_connection_change: confirm }),
        },
        idempotencyKey: `console-cfg-${n}-0001`,
      });

    expect((await refusal(change(operator, "LocalAuthorizeOffline", 1))).code).toBe(
      "stations_admin_required",
    );
    expect((await refusal(change(operator, "SecurityProfile", 2, true))).code).toBe(
      "stations_admin_required",
    );
    expect((await refusal(change(owner, "SecurityProfile", 3))).code).toBe(
      "connection_change_unconfirmed",
    );
    // past the guards, the offline station is refused as every command is
    const confirmed = await change(owner, "SecurityProfile", 4, true);
    expect(confirmed).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
    const plain = await change(operator, "HeartbeatInterval", 5);
    expect(plain.status).toBe("rejected");
    const read = await operator.v1.readStationConfiguration({
      params,
      body: {},
      idempotencyKey: "console-cfg-read-0001",
    });
    expect(read).toMatchObject({ action: "read_configuration", status: "rejected" });
  });
});
