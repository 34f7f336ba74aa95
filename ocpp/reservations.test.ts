import { describe, expect, it } from "vitest";
import type { RPCClient } from "ocpp-rpc";
import { db } from "../server/db";
import { transactionSession } from "../server/bills/transaction-session";
import { priceSession } from "../server/pricing/engine";
import { expireReservations } from "../server/reservations/reservations";
import { call, idem } from "../testing/api";
import { aStation, aStationWithPassword, aTenantWithKey, anotherKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { aTariff } from "../testing/pricing";
import { aChargerWithBill, at, reading } from "../testing/bill-chargers";

const gw = aLiveGateway();

type Answer = (params: any) => Record<string, unknown>;

/** A strict charger whose calls from the service answer as `answers` says, each call recorded. */
async function setup(protocol: "ocpp1.6" | "ocpp2.0.1", answers: Record<string, Answer>) {
  const t = await aTenantWithKey();
  const operator = await anotherKey(t.tenantId, ["stations:read", "stations:control"]);
  const reader = await anotherKey(t.tenantId, ["stations:read"]);
  const station = await aStationWithPassword(t, "reservation-pass-01");
  const received: [string, any][] = [];
  const charger: RPCClient = await aConnectedCharger(
    gw,
    station,
    "reservation-pass-01",
    protocol,
    (c) => {
      for (const [action, answer] of Object.entries(answers))
        c.handle(action, ({ params }: { params?: any }) => {
          received.push([action, params]);
          return Promise.resolve(answer(params));
        });
    },
  );
  const base = `/v1/tenants/${t.tenantId}/stations/${station.id}`;
  await waitUntil(async () => (await call("GET", base, { key: t.key })).body.online);
  const connectorId = station.connectors[0]!.id;
  const reserve = (body: Record<string, unknown>, key = operator) =>
    call("POST", `${base}/reservations`, { key, body, idempotencyKey: idem() });
  const cancel = (id: number, key = operator) =>
    call("POST", `${base}/reservations/${id}/cancel`, { key, idempotencyKey: idem() });
  const reservations = async () =>
    (await call("GET", `${base}/reservations`, { key: reader })).body.data as any[];
  const events = async (type: string) =>
    (
      await db().event.findMany({ where: { tenantId: t.tenantId, type }, orderBy: { id: "asc" } })
    ).map((e) => e.data as any);
  const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
  return {
    ...t,
    operator,
    reader,
    station,
    connectorId,
    charger,
    base,
    received,
    reserve,
    cancel,
    reservations,
    events,
    inAnHour,
  };
}

const reservationTariff = aTariff({
  elements: [
    {
      price_components: [{ type: "TIME", price: 6, step_size: 60 }],
      restrictions: { reservation: "RESERVATION" },
    },
    { price_components: [{ type: "ENERGY", price: 0.3 }] },
  ],
});

describe("reservations (OCPP 1.6)", () => {
  it("reserves a connector with ReserveNow, is used by a StartTransaction carrying its id, and the reserved time is priced", async () => {
    const s = await setup("ocpp1.6", { ReserveNow: () => ({ status: "Accepted" }) });
    try {
      const expiresAt = s.inAnHour();
      const res = await s.reserve({
        connector_id: s.connectorId,
        token: "RFID-0001",
        expires_at: expiresAt,
      });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ scope: "station.reservation", status: "succeeded" });
      const id = res.body.request.reservation_id as number;
      expect(s.received).toEqual([
        [
          "ReserveNow",
          {
            connectorId: 1,
            expiryDate: new Date(expiresAt).toISOString(),
            idTag: "RFID-0001",
            reservationId: id,
          },
        ],
      ]);
      const [listed] = await s.reservations();
      expect(listed).toMatchObject({
        id,
        status: "accepted",
        connector_id: s.connectorId,
        connector_number: 1,
        token: "RFID-0001",
        reserve_operation_id: res.body.id,
      });
      // the station shows it on the connector
      const station = (await call("GET", s.base, { key: s.reader })).body;
      expect(station.connectors[0].reservation).toMatchObject({ id, status: "accepted" });

      // a second reservation on the same connector is refused
      const again = await s.reserve({
        connector_id: s.connectorId,
        token: "RFID-0002",
        expires_at: s.inAnHour(),
      });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("connector_reserved");

      // pretend it was accepted 10 minutes ago, so the reserved time is visible in the price
      const startedAt = new Date();
      const acceptedAt = new Date(startedAt.getTime() - 10 * 60_000);
      await db().reservation.update({ where: { id }, data: { acceptedAt } });
      const started = (await s.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "RFID-0001",
        meterStart: 0,
        timestamp: startedAt.toISOString(),
        reservationId: id,
      })) as { transactionId: number };
      const [used] = await s.reservations();
      expect(used).toMatchObject({ id, status: "used", transaction_id: started.transactionId });
      expect((await s.events("reservation.status_changed")).map((e) => e.status)).toEqual([
        "accepted",
        "used",
      ]);
      const after = (await call("GET", s.base, { key: s.reader })).body;
      expect(after.connectors[0].reservation).toBeNull();

      // the bill's and session's pricing takes the reserved time before the transaction
      const transaction = await db().transaction.findUniqueOrThrow({
        where: { id: started.transactionId },
      });
      const session = await transactionSession(db(), transaction);
      expect(session.reservation).toEqual({
        started_at: acceptedAt,
        ended_at: transaction.startedAt,
        expired: false,
      });
      const priced = priceSession(reservationTariff, session);
      // 10 minutes at 6 an hour: 1.00 (100 minor units)
      expect(priced.dimensions.reservation.excl_vat_minor).toBe(100);
    } finally {
      await s.charger.close({ force: true });
    }
  });

  it("records the charger's refusal, expires an accepted reservation at its time, and cancels with CancelReservation", async () => {
    let answer = "Occupied";
    const s = await setup("ocpp1.6", {
      ReserveNow: () => ({ status: answer }),
      CancelReservation: () => ({ status: "Accepted" }),
    });
    try {
      const refused = await s.reserve({
        connector_id: s.connectorId,
        token: "RFID-0003",
        expires_at: s.inAnHour(),
      });
      expect(refused.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "Occupied", error: { code: "charger_rejected" } },
      });
      expect((await s.reservations())[0]).toMatchObject({ status: "occupied" });

      answer = "Accepted";
      const expiring = await s.reserve({
        connector_id: s.connectorId,
        token: "RFID-0004",
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      });
      const expiringId = expiring.body.request.reservation_id as number;
      expect(await expireReservations(db(), new Date())).toBe(0);
      expect(await expireReservations(db(), new Date(Date.now() + 61_000))).toBe(1);
      const expired = (await s.reservations()).find((r) => r.id === expiringId);
      expect(expired).toMatchObject({ status: "expired" });
      const cancelExpired = await s.cancel(expiringId);
      expect(cancelExpired.status).toBe(409);
      expect(cancelExpired.body.error.code).toBe("reservation_closed");

      const kept = await s.reserve({
        connector_id: s.connectorId,
        token: "RFID-0005",
        expires_at: s.inAnHour(),
      });
      const keptId = kept.body.request.reservation_id as number;
      const canceled = await s.cancel(keptId);
      expect(canceled.status).toBe(202);
      expect(canceled.body).toMatchObject({
        scope: "station.reservation_cancel",
        status: "succeeded",
      });
      expect(s.received.at(-1)).toEqual(["CancelReservation", { reservationId: keptId }]);
      expect((await s.reservations()).find((r) => r.id === keptId)).toMatchObject({
        status: "canceled",
        cancel_operation_id: canceled.body.id,
      });
      expect((await s.events("reservation.status_changed")).map((e) => e.status)).toEqual([
        "occupied",
        "accepted",
        "expired",
        "accepted",
        "canceled",
      ]);
      // reading needs no control scope; acting does
      const denied = await s.reserve(
        { connector_id: s.connectorId, token: "X", expires_at: s.inAnHour() },
        s.reader,
      );
      expect(denied.status).toBe(403);
      const past = await s.reserve({
        connector_id: s.connectorId,
        token: "X",
        expires_at: new Date(Date.now() - 1000).toISOString(),
      });
      expect(past.status).toBe(422);
      expect(past.body.error.code).toBe("validation_failed");

      // a station with no live connection: rejected at once, nothing sent
      const offline = await aStation(s.tenantId, s.key, { connector_count: 1 });
      const sent = s.received.length;
      const unreachable = await call(
        "POST",
        `/v1/tenants/${s.tenantId}/stations/${offline.id}/reservations`,
        {
          key: s.operator,
          idempotencyKey: idem(),
          body: { connector_id: offline.connectors[0]!.id, token: "X", expires_at: s.inAnHour() },
        },
      );
      expect(unreachable.body).toMatchObject({
        status: "rejected",
        result: { error: { code: "station_offline" } },
      });
      const [offlineReservation] = (
        await call("GET", `/v1/tenants/${s.tenantId}/stations/${offline.id}/reservations`, {
          key: s.reader,
        })
      ).body.data;
      expect(offlineReservation).toMatchObject({ status: "rejected" });
      expect(s.received).toHaveLength(sent);
    } finally {
      await s.charger.close({ force: true });
    }
  });
});

describe("a reservation used by a bill's transaction", () => {
  it("adds the reserved time, priced by the tariff's reservation elements, to the bill", async () => {
    const c = await aChargerWithBill({
      url: gw.url,
      protocol: "ocpp1.6",
      tariff: {
        elements: [
          {
            price_components: [{ type: "TIME", price: 6, step_size: 60 }],
            restrictions: { reservation: "RESERVATION" },
          },
          { price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] },
        ],
      },
      answers: { ReserveNow: () => Promise.resolve({ status: "Accepted" }) },
    });
    try {
      const operator = await anotherKey(c.tenantId, ["stations:read", "stations:control"]);
      const reserved = await call(
        "POST",
        `/v1/tenants/${c.tenantId}/stations/${c.station.id}/reservations`,
        {
          key: operator,
          idempotencyKey: idem(),
          body: {
            connector_id: c.station.connectors[0]!.id,
            token: c.token,
            expires_at: new Date(Date.now() + 3600_000).toISOString(),
          },
        },
      );
      expect(reserved.body.status).toBe("succeeded");
      const id = reserved.body.request.reservation_id as number;
      // accepted ten minutes before the charger's start
      await db().reservation.update({
        where: { id },
        data: { acceptedAt: new Date(Date.parse(at(0)) - 10 * 60_000) },
      });
      const tx = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 1000,
        timestamp: at(0),
        reservationId: id,
      })) as { transactionId: number };
      await c.charger.call("MeterValues", {
        connectorId: 1,
        transactionId: tx.transactionId,
        meterValue: [reading(60, 6000)],
      });
      await c.charger.call("StopTransaction", {
        transactionId: tx.transactionId,
        meterStop: 11_000,
        timestamp: at(120),
        reason: "Local",
      });
      // 10 kWh at 0.30 (300) and 10 reserved minutes at 6.00 an hour (100)
      expect(await c.readBill()).toMatchObject({
        status: "ended",
        transaction_id: tx.transactionId,
        running_cost_minor: 400,
      });
    } finally {
      await c.charger.close({ force: true });
    }
  });
});

describe("reservations (OCPP 2.0.1)", () => {
  it("reserves the connector's EVSE with its connector type, follows ReservationStatusUpdate, and is used by a TransactionEvent", async () => {
    const s = await setup("ocpp2.0.1", { ReserveNow: () => ({ status: "Accepted" }) });
    try {
      const expiresAt = s.inAnHour();
      const first = await s.reserve({
        connector_id: s.connectorId,
        token: "app-user-7",
        expires_at: expiresAt,
        connector_type: "cType2",
      });
      expect(first.body.status).toBe("succeeded");
      const firstId = first.body.request.reservation_id as number;
      expect(s.received).toEqual([
        [
          "ReserveNow",
          {
            id: firstId,
            expiryDateTime: new Date(expiresAt).toISOString(),
            idToken: { idToken: "app-user-7", type: "Central" },
            evseId: 1,
            connectorType: "cType2",
          },
        ],
      ]);
      await s.charger.call("ReservationStatusUpdate", {
        reservationId: firstId,
        reservationUpdateStatus: "Expired",
      });
      expect((await s.reservations())[0]).toMatchObject({ id: firstId, status: "expired" });

      const second = await s.reserve({
        connector_id: s.connectorId,
        token: "app-user-8",
        expires_at: s.inAnHour(),
      });
      const secondId = second.body.request.reservation_id as number;
      expect(s.received[1]![1]).not.toHaveProperty("connectorType");
      await s.charger.call("TransactionEvent", {
        eventType: "Started",
        timestamp: new Date().toISOString(),
        triggerReason: "Authorized",
        seqNo: 0,
        transactionInfo: { transactionId: "tx-reserved-1" },
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: "app-user-8", type: "Central" },
        reservationId: secondId,
      });
      const used = (await s.reservations()).find((r) => r.id === secondId);
      expect(used).toMatchObject({ status: "used" });
      expect(used.transaction_id).toEqual(expect.any(Number));

      const third = await s.reserve({
        connector_id: s.connectorId,
        token: "app-user-9",
        expires_at: s.inAnHour(),
      });
      const thirdId = third.body.request.reservation_id as number;
      await s.charger.call("ReservationStatusUpdate", {
        reservationId: thirdId,
        reservationUpdateStatus: "Removed",
      });
      expect((await s.reservations()).find((r) => r.id === thirdId)).toMatchObject({
        status: "canceled",
      });
    } finally {
      await s.charger.close({ force: true });
    }
  });
});
