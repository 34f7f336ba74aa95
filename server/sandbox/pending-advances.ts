import { queryRows, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";

/**
 * What a virtual charger reads to carry on with its station's sandbox sessions, and how it marks
 * an advance applied (ocpp/sandbox/README.md). Reads only: every write of a session is the API
 * side's; the charger writes only an advance's `status`.
 */

/** A transaction the gateway has recorded in progress on the station. */
export type TransactionInProgress = {
  id: number;
  reference: string;
  connectorId: number | null;
  meterStartWh: number;
  /** what the gateway recorded so far: the register it last saw minus `meterStartWh` */
  energyWh: number;
};

export type PendingAdvance = {
  seq: number;
  energyWh: number;
  elapsedSeconds: number;
  socPercent: number | null;
  /** the charger's clock when the advance was asked (now + its clock offset then) */
  sampledAt: Date;
};

/** A sandbox session of the station that is open (`starting`, `charging` or `stopping`). */
export type OpenSandboxSession = {
  id: string;
  status: string;
  connectorId: number;
  billStatus: string;
  /** the bill's transaction (or the session's): null until the charger's start was recorded */
  transactionId: number | null;
  /** the status of the bill's start operation (null: not started) */
  startStatus: string | null;
  /**
   * a stop of its transaction was asked (the session's or the bill's stop operation) and may have
   * reached the charger (`succeeded` or `unknown`)
   */
  stopAsked: boolean;
  /** its pending advances after the charger's last one, in `seq` order (at most `PENDING_LIMIT`) */
  pending: PendingAdvance[];
};

export type StationWork = {
  /** the charger's clock runs this far ahead of real time */
  clockOffsetSeconds: number;
  /** the charger's lifetime register (what the API side counted up to), Wh */
  registerWh: number;
  transactions: TransactionInProgress[];
  sessions: OpenSandboxSession[];
};

/** Pending advances read per session and round; a longer backlog takes more rounds. */
export const PENDING_LIMIT = 100;

/**
 * Everything a virtual charger acts on, in one statement (one snapshot): its clock and register,
 * the transactions in progress on its station, and its station's open sessions with their pending
 * advances after `afterSeq[session id]` (the last advance the charger has reported; 0 when absent).
 */
export async function readStationWork(
  db: DbTx,
  stationId: number,
  afterSeq: Record<string, number> = {},
): Promise<StationWork | null> {
  const [row] = await queryRows<{
    clock_offset_seconds: number;
    register_wh: string;
    transactions: {
      id: number;
      reference: string;
      connector_id: number | null;
      meter_start_wh: string | null;
      energy_wh: number;
    }[];
    sessions: {
      id: string;
      status: string;
      connector_id: number;
      bill_status: string;
      transaction_id: number | null;
      start_status: string | null;
      stop_asked: boolean;
      pending: {
        seq: number;
        energy_wh: number;
        elapsed_seconds: number;
        soc_percent: number | null;
        sampled_at: string;
      }[];
    }[];
  }>(
    db,
    Prisma.sql`
      SELECT c.clock_offset_seconds, c.register_wh::text AS register_wh,
             (SELECT COALESCE(json_agg(json_build_object(
                       'id', t.id, 'reference', t.reference, 'connector_id', t.connector_id,
                       'meter_start_wh', t.meter_start_wh::text, 'energy_wh', t.energy_wh)
                       ORDER BY t.id), '[]')
                FROM transactions t
               WHERE t.station_id = c.station_id AND t.ended_at IS NULL) AS transactions,
             (SELECT COALESCE(json_agg(json_build_object(
                       'id', s.id, 'status', s.status, 'connector_id', s.connector_id,
                       'bill_status', b.status,
                       'transaction_id', COALESCE(s.transaction_id, b.transaction_id),
                       'start_status', so.status,
                       'stop_asked', EXISTS (SELECT 1 FROM operations o
                                              WHERE o.id IN (s.stop_operation_id, b.stop_operation_id)
                                                AND o.status IN ('succeeded', 'unknown')),
                       'pending', (SELECT COALESCE(json_agg(json_build_object(
                                            'seq', a.seq, 'energy_wh', a.energy_wh,
                                            'elapsed_seconds', a.elapsed_seconds,
                                            'soc_percent', a.soc_percent,
                                            'sampled_at', a.sampled_at) ORDER BY a.seq), '[]')
                                     FROM (SELECT * FROM sandbox_advances a
                                            WHERE a.session_id = s.id AND a.status = 'pending'
                                              AND a.seq > COALESCE((${JSON.stringify(afterSeq)}::jsonb
                                                                     ->> s.id)::int, 0)
                                            ORDER BY a.seq LIMIT ${PENDING_LIMIT}) a))
                       ORDER BY s.id), '[]')
                FROM connectors k
                JOIN sandbox_sessions s ON s.open_connector_id = k.id
                JOIN bills b ON b.id = s.bill_id
                LEFT JOIN operations so ON so.id = b.start_operation_id
               WHERE k.station_id = c.station_id) AS sessions
        FROM sandbox_chargers c
       WHERE c.station_id = ${stationId}`,
  );
  if (!row) return null;
  return {
    clockOffsetSeconds: row.clock_offset_seconds,
    registerWh: Number(row.register_wh),
    transactions: row.transactions.map((t) => ({
      id: t.id,
      reference: t.reference,
      connectorId: t.connector_id,
      meterStartWh: Number(t.meter_start_wh ?? 0),
      energyWh: t.energy_wh,
    })),
    sessions: row.sessions.map((s) => ({
      id: s.id,
      status: s.status,
      connectorId: s.connector_id,
      billStatus: s.bill_status,
      transactionId: s.transaction_id,
      startStatus: s.start_status,
      stopAsked: s.stop_asked,
      pending: s.pending.map((a) => ({
        seq: a.seq,
        energyWh: a.energy_wh,
        elapsedSeconds: a.elapsed_seconds,
        socPercent: a.soc_percent,
        sampledAt: new Date(a.sampled_at),
      })),
    })),
  };
}

/**
 * A session's advances already marked applied (a prefix of its `seq`s: they are marked in order):
 * their energy in all and the last one's `seq` (0 when none). What a charger taking over a
 * transaction has reported of the session so far.
 */
export async function readAppliedAdvances(db: DbTx, sessionId: string) {
  const [row] = await queryRows<{ energy_wh: string; seq: number }>(
    db,
    Prisma.sql`
      SELECT COALESCE(sum(energy_wh), 0)::text AS energy_wh, COALESCE(max(seq), 0) AS seq
        FROM sandbox_advances WHERE session_id = ${sessionId} AND status = 'applied'`,
  );
  return { energyWh: Number(row?.energy_wh ?? 0), seq: row?.seq ?? 0 };
}

/** The charger's clock offset and register now (what a transaction's start and end report). */
export async function readChargerClock(db: DbTx, stationId: number) {
  const [row] = await queryRows<{ clock_offset_seconds: number; register_wh: string }>(
    db,
    Prisma.sql`
      SELECT clock_offset_seconds, register_wh::text AS register_wh
        FROM sandbox_chargers WHERE station_id = ${stationId}`,
  );
  return row
    ? { clockOffsetSeconds: row.clock_offset_seconds, registerWh: Number(row.register_wh) }
    : null;
}

/**
 * The open session on a connector and its bill's charging token: what a charger given a start
 * with that token reports the session's advances on. The token is what the charger was given in
 * the start; read again by a charger taking over a start its predecessor accepted but did not
 * report. Never logged or shown.
 */
export async function readSessionOnConnector(db: DbTx, connectorId: number) {
  const [row] = await queryRows<{ id: string; charging_token: string }>(
    db,
    Prisma.sql`
      SELECT s.id, b.charging_token FROM sandbox_sessions s JOIN bills b ON b.id = s.bill_id
       WHERE s.open_connector_id = ${connectorId}`,
  );
  return row ? { id: row.id, chargingToken: row.charging_token } : null;
}

/**
 * The gateway has recorded the advance (it answered the meter report, after its commit): marked
 * `applied`, and the API's waiting answer woken (`NOTIFY sandbox_applied, '<session id>'`, in the
 * same statement, delivered at commit). Marking twice changes nothing.
 */
export async function markAdvanceApplied(db: DbTx, sessionId: string, seq: number) {
  await queryRows(
    db,
    Prisma.sql`
      WITH applied AS (
        UPDATE sandbox_advances SET status = 'applied', applied_at = now()
         WHERE session_id = ${sessionId} AND seq = ${seq} AND status = 'pending'
        RETURNING session_id)
      SELECT pg_notify('sandbox_applied', session_id)::text FROM applied`,
  );
}
