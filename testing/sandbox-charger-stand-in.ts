/**
 * A TEST STAND-IN for the virtual-charger host (ocpp/sandbox/, built elsewhere to the contract in
 * server/sandbox/README.md, The contract): just enough of it, faithful to the contract, for the
 * API side's tests until the real host is merged. Not product code; nothing imports it but tests.
 *
 * For every sandbox station with an open session (or every one it is told to host) it claims the
 * `sandbox_chargers` lease, connects a strict ocpp-rpc client to the gateway with the station's
 * unsealed password and its protocol (2.0.1 or 1.6), boots, reports its connectors Available,
 * answers Request/RemoteStartTransaction by starting a transaction (idToken as given, meter =
 * register, timestamp = now + clock offset) and Request/RemoteStopTransaction by first sending
 * every pending advance, then ending it; on `NOTIFY sandbox` it sends each pending advance of the
 * station's sessions in `seq` order as a meter report and, once the gateway answered, marks it
 * `applied` and `NOTIFY sandbox_applied`.
 */
import crypto from "node:crypto";
import pg from "pg";
import type { RPCClient } from "ocpp-rpc";
import { db } from "../server/db";
import { open } from "../server/lib/secret-box";
import { aCharger } from "./ocpp";

type Transaction = { reference: string; seqNo: number; connectorId: number };
type Hosted = {
  stationId: number;
  protocol: "ocpp1.6" | "ocpp2.0.1";
  client: RPCClient;
  /** by connector resource id */
  transactions: Map<number, Transaction>;
  /** one thing at a time per charger, in order */
  queue: Promise<unknown>;
};

export async function aSandboxChargerStandIn(options: {
  url: string;
  hostId?: string;
  /** refuse starts (the charger answers Rejected) */
  refuseStarts?: boolean;
}) {
  const hostId = options.hostId ?? `stand-in-${crypto.randomUUID().slice(0, 8)}`;
  const hosted = new Map<number, Hosted>();
  const connecting = new Set<number>();
  let closed = false;
  const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await listener.connect();
  await listener.query("LISTEN sandbox");
  listener.on("notification", (n) => {
    const stationId = Number(n.payload);
    void reconcile().then(() => {
      const h = hosted.get(stationId);
      if (h) enqueue(h, () => sendPending(h));
    });
  });

  const enqueue = (h: Hosted, work: () => Promise<unknown>): void => {
    h.queue = h.queue.then(work).catch((error: unknown) => {
      if (!closed) console.warn("sandbox stand-in:", error);
    });
  };

  /** Connects the wanted chargers whose lease it can take. */
  async function reconcile() {
    if (closed) return;
    const wanted = await db().$queryRaw<
      { station_id: number; name: string; protocol: string; password_sealed: string }[]
    >`
      UPDATE sandbox_chargers c SET host_gateway_id = ${hostId},
             lease_until = now() + interval '30 seconds'
        FROM stations s
       WHERE s.id = c.station_id
         AND EXISTS (SELECT 1 FROM sandbox_sessions x
                      WHERE x.station_id = c.station_id AND x.open_connector_id IS NOT NULL)
         AND (c.host_gateway_id IS NULL OR c.host_gateway_id = ${hostId} OR c.lease_until < now())
      RETURNING c.station_id, s.name, c.protocol, c.password_sealed`;
    for (const w of wanted) {
      if (hosted.has(w.station_id) || connecting.has(w.station_id)) continue;
      connecting.add(w.station_id);
      try {
        await connect(w);
      } finally {
        connecting.delete(w.station_id);
      }
    }
  }

  async function connect(w: {
    station_id: number;
    name: string;
    protocol: string;
    password_sealed: string;
  }) {
    const protocol = w.protocol === "ocpp1.6" ? "ocpp1.6" : "ocpp2.0.1";
    const client = aCharger({
      url: options.url,
      identity: w.name,
      password: open(w.password_sealed),
      protocol,
    });
    const h: Hosted = {
      stationId: w.station_id,
      protocol,
      client,
      transactions: new Map(),
      queue: Promise.resolve(),
    };
    const v16 = protocol === "ocpp1.6";
    client.handle(v16 ? "RemoteStartTransaction" : "RequestStartTransaction", ({ params }) => {
      if (options.refuseStarts) return Promise.resolve({ status: "Rejected" });
      // the answer goes first, then the transaction starts (as a charger does)
      setTimeout(() => enqueue(h, () => start(h, params as Record<string, unknown>)), 0);
      return Promise.resolve({ status: "Accepted" });
    });
    client.handle(v16 ? "RemoteStopTransaction" : "RequestStopTransaction", ({ params }) => {
      const id = String((params as { transactionId: string | number }).transactionId);
      const known = [...h.transactions.entries()].find(([, t]) => t.reference === id);
      if (!known) return Promise.resolve({ status: "Rejected" });
      setTimeout(() => enqueue(h, () => stop(h, known[0])), 0);
      return Promise.resolve({ status: "Accepted" });
    });
    if (!v16) client.handle("CostUpdated", () => Promise.resolve({}));
    await client.connect();
    hosted.set(w.station_id, h);
    await client.call(
      "BootNotification",
      v16
        ? { chargePointVendor: "ChargeCloud", chargePointModel: "Sandbox stand-in" }
        : {
            reason: "PowerUp",
            chargingStation: { vendorName: "ChargeCloud", model: "Sandbox stand-in" },
          },
    );
    const connectors = await db().connector.findMany({
      where: { stationId: w.station_id },
      include: { evse: true },
      orderBy: { connectorNumber: "asc" },
    });
    for (const c of connectors)
      await client.call(
        "StatusNotification",
        v16
          ? { connectorId: c.connectorNumber, errorCode: "NoError", status: "Available" }
          : {
              timestamp: new Date().toISOString(),
              connectorStatus: "Available",
              evseId: c.evse.evseNumber,
              connectorId: c.evseConnectorNumber,
            },
      );
  }

  const clock = async (stationId: number) => {
    const c = await db().sandboxCharger.findUniqueOrThrow({ where: { stationId } });
    return {
      register: Number(c.registerWh),
      at: new Date(Date.now() + c.clockOffsetSeconds * 1000),
    };
  };

  async function start(h: Hosted, params: Record<string, unknown>) {
    const v16 = h.protocol === "ocpp1.6";
    const connector = await db().connector.findFirstOrThrow({
      where: v16
        ? { stationId: h.stationId, connectorNumber: params.connectorId as number }
        : { stationId: h.stationId, evse: { evseNumber: params.evseId as number } },
      include: { evse: true },
    });
    const { register, at } = await clock(h.stationId);
    if (v16) {
      const answer = (await h.client.call("StartTransaction", {
        connectorId: connector.connectorNumber,
        idTag: params.idTag,
        meterStart: register,
        timestamp: at.toISOString(),
      })) as { transactionId: number };
      h.transactions.set(connector.id, {
        reference: String(answer.transactionId),
        seqNo: 0,
        connectorId: connector.connectorNumber,
      });
      await h.client.call("StatusNotification", {
        connectorId: connector.connectorNumber,
        errorCode: "NoError",
        status: "Charging",
      });
      return;
    }
    const t = {
      reference: crypto.randomUUID(),
      seqNo: 0,
      connectorId: connector.evseConnectorNumber,
    };
    h.transactions.set(connector.id, t);
    await h.client.call("TransactionEvent", {
      eventType: "Started",
      timestamp: at.toISOString(),
      triggerReason: "RemoteStart",
      seqNo: t.seqNo++,
      transactionInfo: {
        transactionId: t.reference,
        chargingState: "Charging",
        remoteStartId: params.remoteStartId,
      },
      evse: { id: connector.evse.evseNumber, connectorId: connector.evseConnectorNumber },
      idToken: params.idToken,
      meterValue: [meterValue(at, register)],
    });
    await h.client.call("StatusNotification", {
      timestamp: new Date().toISOString(),
      connectorStatus: "Occupied",
      evseId: connector.evse.evseNumber,
      connectorId: connector.evseConnectorNumber,
    });
  }

  /** Every pending advance of the station's open sessions, in seq order, each marked once answered. */
  async function sendPending(h: Hosted) {
    const pending = await db().sandboxAdvance.findMany({
      where: { status: "pending", session: { stationId: h.stationId } },
      include: { session: { select: { connectorId: true } } },
      orderBy: [{ sessionId: "asc" }, { seq: "asc" }],
    });
    for (const a of pending) {
      const t = h.transactions.get(a.session.connectorId);
      if (!t) continue;
      const power = Math.round((a.energyWh * 3600) / a.elapsedSeconds);
      const value = meterValue(a.sampledAt, Number(a.registerWh), power, a.socPercent);
      if (h.protocol === "ocpp1.6")
        await h.client.call("MeterValues", {
          connectorId: t.connectorId,
          transactionId: Number(t.reference),
          meterValue: [asV16(value)],
        });
      else
        await h.client.call("TransactionEvent", {
          eventType: "Updated",
          timestamp: a.sampledAt.toISOString(),
          triggerReason: "MeterValuePeriodic",
          seqNo: t.seqNo++,
          transactionInfo: { transactionId: t.reference, chargingState: "Charging" },
          meterValue: [value],
        });
      await db().$executeRaw`
        WITH marked AS (
          UPDATE sandbox_advances SET status = 'applied', applied_at = now()
           WHERE session_id = ${a.sessionId} AND seq = ${a.seq} AND status = 'pending'
          RETURNING session_id)
        SELECT pg_notify('sandbox_applied', session_id) FROM marked`;
    }
  }

  async function stop(h: Hosted, connectorResourceId: number) {
    await sendPending(h);
    const t = h.transactions.get(connectorResourceId)!;
    const connector = await db().connector.findUniqueOrThrow({
      where: { id: connectorResourceId },
      include: { evse: true },
    });
    const { register, at } = await clock(h.stationId);
    if (h.protocol === "ocpp1.6") {
      await h.client.call("StopTransaction", {
        transactionId: Number(t.reference),
        meterStop: register,
        timestamp: at.toISOString(),
        reason: "Remote",
      });
      await h.client.call("StatusNotification", {
        connectorId: connector.connectorNumber,
        errorCode: "NoError",
        status: "Available",
      });
    } else {
      await h.client.call("TransactionEvent", {
        eventType: "Ended",
        timestamp: at.toISOString(),
        triggerReason: "RemoteStop",
        seqNo: t.seqNo++,
        transactionInfo: { transactionId: t.reference, stoppedReason: "Remote" },
        meterValue: [
          {
            ...meterValue(at, register),
            sampledValue: [
              {
                value: register,
                measurand: "Energy.Active.Import.Register",
                context: "Transaction.End",
              },
            ],
          },
        ],
      });
      await h.client.call("StatusNotification", {
        timestamp: new Date().toISOString(),
        connectorStatus: "Available",
        evseId: connector.evse.evseNumber,
        connectorId: connector.evseConnectorNumber,
      });
    }
    h.transactions.delete(connectorResourceId);
  }

  const poll = setInterval(() => void reconcile(), 200);
  await reconcile();
  return {
    hostId,
    /** the ocpp-rpc client of a hosted station (to watch its frames), once connected */
    client: (stationId: number) => hosted.get(stationId)?.client,
    close: async () => {
      closed = true;
      clearInterval(poll);
      await listener.end().catch(() => {});
      await Promise.all([...hosted.values()].map((h) => h.client.close({ force: true })));
      hosted.clear();
    },
  };
}

/** A 2.0.1 meter value (1.6 takes the same with string values and a plain `unit`). */
function meterValue(at: Date, register: number, powerW?: number, soc?: number | null) {
  return {
    timestamp: at.toISOString(),
    sampledValue: [
      { value: register, measurand: "Energy.Active.Import.Register" },
      ...(powerW === undefined ? [] : [{ value: powerW, measurand: "Power.Active.Import" }]),
      ...(soc === undefined || soc === null
        ? []
        : [{ value: soc, measurand: "SoC", unitOfMeasure: { unit: "Percent" } }]),
    ],
  };
}

function asV16(value: ReturnType<typeof meterValue>) {
  return {
    timestamp: value.timestamp,
    sampledValue: value.sampledValue.map(({ value: v, measurand, ...rest }) => ({
      value: String(v),
      measurand,
      ...("unitOfMeasure" in rest && rest.unitOfMeasure ? { unit: rest.unitOfMeasure.unit } : {}),
    })),
  };
}
