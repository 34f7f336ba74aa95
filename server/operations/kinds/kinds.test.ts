import { describe, expect, it } from "vitest";
import { registerGateway } from "../../charging/gateways";
import { db } from "../../db";
import type { Operation } from "../../generated/prisma/client";
import { newId } from "../../lib/ids";
import { open } from "../../lib/secret-box";
import { aBill, aTariff } from "../../../testing/bills";
import { aStation, aTenantWithKey } from "../../../testing/builders";
import { completeOperation } from "../complete-operation";
import { createOperation } from "../create-operation";
import { findOperationKind, operationKind } from ".";
import type { OcppCall, Refusal } from "./kind";

/** A station held by a live gateway, with the protocol given. */
async function aConnectedStation(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  const gatewayId = newId("gw");
  await registerGateway(db(), gatewayId);
  await db().station.update({
    where: { id: station.id },
    data: { gatewayId, protocol, connectedAt: new Date() },
  });
  return { ...t, station, dispatch: { id: station.id, tenantId: t.tenantId, protocol } };
}

const anOperation = (o: Partial<Operation> & Pick<Operation, "scope" | "request">): Operation => ({
  id: newId("op"),
  tenantId: 1,
  apiKeyId: null,
  stationId: 1,
  action: "x",
  status: "dispatching",
  secret: null,
  result: null,
  claimedBy: null,
  claimedAt: null,
  createdAt: new Date(),
  completedAt: null,
  ...o,
});

describe("the operation kind registry", () => {
  it("fails loudly for a scope no kind serves, at lookup and at creation, and writes nothing", async () => {
    expect(() => operationKind("station.teleport")).toThrow(
      /No operation kind .*station\.teleport/,
    );
    expect(() => operationKind("toString")).toThrow(/No operation kind/); // not Object.prototype's
    expect(findOperationKind("station.update")).toBeUndefined();
    const s = await aConnectedStation("ocpp1.6");
    await expect(
      createOperation({
        tenantId: s.tenantId,
        stationId: s.station.id,
        apiKeyId: null,
        scope: "station.teleport",
        action: "go",
        request: {},
      }),
    ).rejects.toThrow(/No operation kind/);
    expect(await db().operation.count({ where: { stationId: s.station.id } })).toBe(0);
  });

  it("station.command builds each command for the protocol the station speaks, and interprets answers", async () => {
    const calls: Record<string, (OcppCall | Refusal)[]> = {};
    for (const protocol of ["ocpp1.6", "ocpp2.0.1"] as const) {
      const s = await aConnectedStation(protocol);
      const connector = await db().connector.findUniqueOrThrow({
        where: { id: s.station.connectors[1]!.id },
        include: { evse: true },
      });
      const transaction = await db().transaction.create({
        data: {
          tenantId: s.tenantId,
          stationId: s.station.id,
          reference: protocol === "ocpp1.6" ? "4711" : "tx-abc",
        },
      });
      const build = (request: Operation["request"]) =>
        operationKind("station.command").build({
          operation: anOperation({ scope: "station.command", request }),
          station: s.dispatch,
          secret: null,
          db: db(),
        });
      calls[protocol] = [
        await build({ action: "reset", mode: "hard" }),
        await build({ action: "unlock", connector_id: connector.id }),
        await build({ action: "stop", transaction_id: transaction.id }),
        await build({ action: "availability", connector_id: connector.id, mode: "operative" }),
        // a connector that is not (or no longer) the station's: refused, nothing to send
        await build({ action: "unlock", connector_id: 2_000_000_000 }),
      ];
      expect(connector).toMatchObject({ connectorNumber: 2, evseConnectorNumber: 1 });
    }
    expect(calls["ocpp1.6"]).toEqual([
      { action: "Reset", payload: { type: "Hard" } },
      { action: "UnlockConnector", payload: { connectorId: 2 } },
      { action: "RemoteStopTransaction", payload: { transactionId: 4711 } },
      { action: "ChangeAvailability", payload: { connectorId: 2, type: "Operative" } },
      { refused: expect.objectContaining({ code: "connector_not_found" }) },
    ]);
    expect(calls["ocpp2.0.1"]).toEqual([
      { action: "Reset", payload: { type: "Immediate" } },
      { action: "UnlockConnector", payload: { evseId: 2, connectorId: 1 } },
      { action: "RequestStopTransaction", payload: { transactionId: "tx-abc" } },
      {
        action: "ChangeAvailability",
        payload: { operationalStatus: "Operative", evse: { id: 2, connectorId: 1 } },
      },
      { refused: expect.objectContaining({ code: "connector_not_found" }) },
    ]);

    const kind = operationKind("station.command");
    expect(kind.interpret({ status: "Unlocked" }, "ocpp1.6")).toEqual({
      status: "succeeded",
      result: { charger_status: "Unlocked", response: { status: "Unlocked" } },
    });
    expect(kind.interpret({ status: "Rejected" }, "ocpp2.0.1")).toMatchObject({
      status: "rejected",
      result: { charger_status: "Rejected", error: { code: "charger_rejected" } },
    });
  });

  it("bill.cap builds the stop or the connector's ChangeAvailability Inoperative for each protocol, and sends nothing for an ended transaction", async () => {
    const calls: Record<string, (OcppCall | Refusal)[]> = {};
    for (const protocol of ["ocpp1.6", "ocpp2.0.1"] as const) {
      const s = await aConnectedStation(protocol);
      const tariff = await aTariff(s.tenantId, s.key, { rate_minor_per_kwh: 35 });
      const bill = await aBill(s.tenantId, s.key, {
        station_id: s.station.id,
        connector_id: s.station.connectors[1]!.id,
        tariff_id: tariff.id,
        source: "csms",
      });
      const transaction = await db().transaction.create({
        data: {
          tenantId: s.tenantId,
          stationId: s.station.id,
          reference: protocol === "ocpp1.6" ? "4712" : "tx-cap",
        },
      });
      await db().bill.update({ where: { id: bill.id }, data: { transactionId: transaction.id } });
      const build = (means: string) =>
        operationKind("bill.cap").build({
          operation: anOperation({
            scope: "bill.cap",
            request: { bill_id: bill.id, transaction_id: transaction.id, means, attempt: 1 },
          }),
          station: s.dispatch,
          secret: null,
          db: db(),
        });
      calls[protocol] = [await build("stop"), await build("availability")];
      await db().transaction.update({
        where: { id: transaction.id },
        data: { endedAt: new Date() },
      });
      calls[protocol].push(await build("stop"));
    }
    const ended = { refused: expect.objectContaining({ code: "transaction_ended" }) };
    expect(calls["ocpp1.6"]).toEqual([
      { action: "RemoteStopTransaction", payload: { transactionId: 4712 } },
      { action: "ChangeAvailability", payload: { connectorId: 2, type: "Inoperative" } },
      ended,
    ]);
    expect(calls["ocpp2.0.1"]).toEqual([
      { action: "RequestStopTransaction", payload: { transactionId: "tx-cap" } },
      {
        action: "ChangeAvailability",
        payload: { operationalStatus: "Inoperative", evse: { id: 2, connectorId: 1 } },
      },
      ended,
    ]);
    const kind = operationKind("bill.cap");
    expect(kind.interpret({ status: "Scheduled" }, "ocpp1.6").status).toBe("succeeded");
    expect(kind.interpret({ status: "Rejected" }, "ocpp2.0.1").status).toBe("rejected");
  });

  it("station.credentials pushes the secret to a 2.x station, refuses 1.6, and reads SetVariables' answer", async () => {
    const kind = operationKind("station.credentials");
    const operation = anOperation({
      scope: "station.credentials",
      request: { password_hash: "h" },
    });
    const build = (protocol: string, secret: string | null) =>
      kind.build({ operation, station: { id: 1, tenantId: 1, protocol }, secret, db: db() });
    expect(await build("ocpp2.0.1", "new-password-00001")).toEqual({
      action: "SetVariables",
      payload: {
        setVariableData: [
          {
            attributeValue: "new-password-00001",
            component: { name: "SecurityCtrlr" },
            variable: { name: "BasicAuthPassword" },
          },
        ],
      },
    });
    expect(await build("ocpp1.6", "new-password-00001")).toEqual({
      refused: expect.objectContaining({ code: "station_online" }),
    });
    expect(await build("ocpp2.1", null)).toEqual({
      refused: expect.objectContaining({ code: "internal_error" }),
    });
    const answer = (attributeStatus: string) => ({
      setVariableResult: [
        {
          attributeStatus,
          component: { name: "SecurityCtrlr" },
          variable: { name: "BasicAuthPassword" },
        },
      ],
    });
    expect(kind.interpret(answer("Accepted"), "ocpp2.0.1")).toEqual({
      status: "succeeded",
      result: { applied: "pushed" },
    });
    expect(kind.interpret(answer("Rejected"), "ocpp2.0.1")).toMatchObject({
      status: "rejected",
      result: { charger_status: "Rejected", error: { code: "charger_rejected" } },
    });
    expect(kind.hiddenRequestFields).toEqual(["password_hash"]);
  });
});

describe("onSettled", () => {
  async function aPendingPush() {
    const s = await aConnectedStation("ocpp2.0.1");
    const before = await db().station.findUniqueOrThrow({ where: { id: s.station.id } });
    const created = await createOperation({
      tenantId: s.tenantId,
      stationId: s.station.id,
      apiKeyId: null,
      scope: "station.credentials",
      action: "set_password",
      request: { password_hash: "scrypt$pushed-hash" },
      secret: "pushed-password-001",
    });
    expect(created.status).toBe("dispatching");
    expect(created.request).toEqual({}); // the hash is one of the kind's hidden fields
    const row = await db().operation.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secret).not.toContain("pushed-password-001"); // sealed at rest
    expect(open(row.secret!)).toBe("pushed-password-001");
    const hash = async () =>
      (await db().station.findUniqueOrThrow({ where: { id: s.station.id } })).passwordHash;
    const events = async () =>
      (
        await db().event.findMany({
          where: { tenantId: s.tenantId },
          orderBy: { sequence: "asc" },
        })
      ).map((e) => e.type);
    return { ...s, id: created.id, hashBefore: before.passwordHash, hash, events };
  }

  it("runs in the transaction that completes the operation: rolled back with it, committed with it", async () => {
    const p = await aPendingPush();
    const accepted = { status: "succeeded" as const, result: { applied: "pushed" } };
    await expect(
      db().$transaction(async (tx) => {
        await completeOperation(tx, p.id, accepted);
        const inside = await tx.station.findUniqueOrThrow({ where: { id: p.station.id } });
        expect(inside.passwordHash).toBe("scrypt$pushed-hash");
        throw new Error("the completing transaction fails");
      }),
    ).rejects.toThrow("the completing transaction fails");
    expect(await p.hash()).toBe(p.hashBefore);
    expect((await db().operation.findUniqueOrThrow({ where: { id: p.id } })).status).toBe(
      "dispatching",
    );

    await db().$transaction((tx) => completeOperation(tx, p.id, accepted));
    expect(await p.hash()).toBe("scrypt$pushed-hash");
    const row = await db().operation.findUniqueOrThrow({ where: { id: p.id } });
    expect(row).toMatchObject({ status: "succeeded", secret: null });
    // what onSettled records comes before the operation's own completion
    expect((await p.events()).slice(-2)).toEqual([
      "station.credentials_changed",
      "operation.completed",
    ]);
  });

  it("does not run for an operation that was already final, nor store anything on a rejection", async () => {
    const p = await aPendingPush();
    const rejected = await db().$transaction((tx) =>
      completeOperation(tx, p.id, {
        status: "rejected",
        result: { error: { code: "charger_rejected", message: "no", details: {} } },
      }),
    );
    expect(rejected?.status).toBe("rejected");
    expect(await p.hash()).toBe(p.hashBefore);
    const late = await db().$transaction((tx) =>
      completeOperation(tx, p.id, { status: "succeeded", result: { applied: "pushed" } }),
    );
    expect(late).toBeNull();
    expect(await p.hash()).toBe(p.hashBefore);
    expect((await p.events()).filter((t) => t === "station.credentials_changed")).toEqual([]);
    expect((await p.events()).filter((t) => t === "operation.completed")).toHaveLength(1);
  });
});
