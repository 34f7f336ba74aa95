import crypto from "node:crypto";
import { RPCClient } from "ocpp-rpc";
import type { Db } from "../../server/db";
import { log } from "../../server/log";
import { runChargerReady } from "../../server/sandbox/charger-hooks";
import {
  readSandboxChargerSetup,
  type SandboxChargerSetup,
} from "../../server/sandbox/charger-setup";
import {
  PENDING_LIMIT,
  markAdvanceApplied,
  readAppliedAdvances,
  readChargerClock,
  readSessionOnConnector,
  readStationWork,
  type PendingAdvance,
  type StationWork,
} from "../../server/sandbox/pending-advances";
import { HEARTBEAT_INTERVAL_SECONDS } from "../handlers/types";
import { strictModeValidators } from "../protocol/validators";
import { changeConfiguration, getConfiguration, getVariables, setVariables } from "./configuration";
import {
  v16Frames,
  v2Frames,
  voltageOf,
  type Call,
  type ConnectorRef,
  type ConnectorState,
  type EndReason,
  type Frames,
  type MeterReading,
  type TransactionRef,
} from "./frames";

/** A transaction in progress on one of the charger's connectors, as the charger keeps it. */
type Running = TransactionRef & {
  /** the sandbox session whose advances it reports (null: a start that was not a session's) */
  sessionId: string | null;
  meterStartWh: number;
  /** energy of the session's advances reported (or found already recorded) so far */
  meteredWh: number;
  /** the last advance reported */
  lastSeq: number;
  /** the last charger timestamp sent for it */
  lastAt: Date;
  /** set once it must end: it ends after its pending advances */
  ending: EndReason | null;
};

export type VirtualChargerOptions = {
  db: Db;
  stationId: number;
  /** the gateway's own OCPP endpoint, e.g. `ws://127.0.0.1:9000/ocpp` */
  ocppUrl: string;
  /** options for the websocket (TLS trust for a `wss` endpoint) */
  wsOptions?: Record<string, unknown>;
  callTimeoutMs: number;
  /** the socket closed without `stop()` (the gateway closed it, or a reboot failed to reconnect) */
  onClosed: (charger: VirtualCharger) => void;
  /** tests: runs once a meter report was answered, before its advance is marked applied */
  afterReport?: (report: { stationId: number; sessionId: string; seq: number }) => Promise<void>;
  /** tests: every call the charger made that the gateway answered, with the answer */
  tap?: (frame: ChargerFrame) => void;
};

/** A call the charger made and the gateway's answer (`VirtualChargerOptions.tap`). */
export type ChargerFrame = {
  stationId: number;
  messageId: string;
  action: string;
  payload: Record<string, unknown>;
  answer: Record<string, unknown>;
};

/**
 * One sandbox station's charger (ocpp/sandbox/README.md): an ocpp-rpc client in strict mode that
 * connects to this gateway's own OCPP endpoint as the station, with its password (the production
 * handshake), and behaves like a well-behaved charger: boots, reports its connectors, starts a
 * transaction when asked with the token it was given, reports each pending advance of the
 * station's open sessions in `seq` order as a meter report and marks it applied once the gateway
 * answered, and on a stop reports every pending advance before it ends the transaction.
 *
 * Everything it sends goes through one queue (`work`): one frame at a time per station, each
 * outside any database transaction, in the order the charger decided. What to do next is read
 * from the database each round (`readStationWork`), so a charger taking over from a dead gateway
 * carries on from what the gateway recorded.
 */
export class VirtualCharger {
  readonly stationId: number;
  private readonly options: VirtualChargerOptions;
  private setup?: SandboxChargerSetup;
  private frames: Frames = v2Frames;
  private client?: RPCClient;
  /** bumped by every socket: work queued for an older one is dropped */
  private connection = 0;
  private work: Promise<void> = Promise.resolve();
  private roundQueued = false;
  private stopped = false;
  private rebooting = false;
  private heartbeat?: NodeJS.Timeout;
  /** transactions in progress, by connector id */
  private running = new Map<number, Running>();
  /** connectors with a start accepted whose transaction is not yet reported */
  private starting = new Set<number>();
  /** connectors out of service, and those to go once their transaction ends */
  private inoperative = new Set<number>();
  private inoperativeLater = new Set<number>();
  /** a reset waits for the transactions to end, then the charger reboots */
  private resetWhenIdle = false;

  constructor(options: VirtualChargerOptions) {
    this.options = options;
    this.stationId = options.stationId;
  }

  get connected() {
    return this.client !== undefined && !this.stopped;
  }

  /** One connection attempt: resolves once connected (the boot follows in the queue). */
  async connect(): Promise<void> {
    if (this.stopped) throw new Error("the charger was stopped");
    const setup = await readSandboxChargerSetup(this.options.db, this.stationId);
    if (!setup) throw new Error(`station ${this.stationId} has no sandbox charger`);
    this.setup = setup;
    this.frames = setup.protocol === "ocpp1.6" ? v16Frames : v2Frames;
    const client = new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
      endpoint: this.options.ocppUrl,
      identity: setup.name,
      password: setup.password,
      protocols: [setup.protocol],
      strictMode: true,
      strictModeValidators,
      reconnect: false,
      callTimeoutMs: this.options.callTimeoutMs,
      wsOpts: this.options.wsOptions ?? {},
    });
    this.answerCalls(client);
    const tap = this.options.tap;
    if (tap)
      client.on(
        "callResult",
        (event: {
          outbound: boolean;
          messageId: string;
          method: string;
          params: unknown;
          result: unknown;
        }) => {
          if (event.outbound)
            tap({
              stationId: this.stationId,
              messageId: event.messageId,
              action: event.method,
              payload: event.params as Record<string, unknown>,
              answer: event.result as Record<string, unknown>,
            });
        },
      );
    await client.connect();
    if (this.stopped) {
      await client.close({ force: true }).catch(() => {});
      throw new Error("the charger was stopped");
    }
    const connection = ++this.connection;
    this.client = client;
    // Work queued for an older socket was dropped: the starts it held are read again below.
    this.starting.clear();
    this.roundQueued = false;
    client.once("close", () => {
      if (this.client === client) this.client = undefined;
      clearInterval(this.heartbeat);
      if (!this.stopped && !this.rebooting) this.options.onClosed(this);
    });
    this.enqueue(connection, () => this.boot(connection));
  }

  /** Something changed for the station (a notice, the host's tick): look again and act. */
  requestRound() {
    if (this.roundQueued || !this.client) return;
    this.roundQueued = true;
    const connection = this.connection;
    this.enqueue(
      connection,
      async () => {
        this.roundQueued = false;
        while (await this.round(connection));
      },
      () => (this.roundQueued = false),
    );
  }

  /**
   * Closes the socket once the frame in flight (if any) is answered, or after `graceMs`. The
   * transactions stay in progress: whoever hosts the charger next carries on with them.
   */
  async stop(graceMs = 2_000) {
    this.stopped = true;
    clearInterval(this.heartbeat);
    await Promise.race([this.work, new Promise((r) => setTimeout(r, graceMs).unref())]);
    const client = this.client;
    this.client = undefined;
    await client?.close({ code: 1000, reason: "sandbox charger stopped", force: true });
  }

  private enqueue(connection: number, task: () => Promise<void>, skipped?: () => void) {
    this.work = this.work.then(async () => {
      if (connection !== this.connection || !this.client || this.stopped) return skipped?.();
      try {
        await task();
      } catch (error) {
        log.warn("sandbox charger step failed", { stationId: this.stationId, error });
      }
    });
  }

  private async call(connection: number, { action, payload }: Call) {
    const client = this.client;
    if (!client || connection !== this.connection) throw new Error("the socket is gone");
    return (await client.call(action, payload)) as Record<string, unknown>;
  }

  private virtualNow(clockOffsetSeconds: number) {
    return new Date(Date.now() + clockOffsetSeconds * 1000);
  }

  private connectorState(connector: ConnectorRef): ConnectorState {
    if (this.running.has(connector.id)) return "Occupied";
    return this.inoperative.has(connector.id) ? "Unavailable" : "Available";
  }

  /** Boot, the state of every connector, then a first round (which carries on what is open). */
  private async boot(connection: number, reason: "PowerUp" | "Triggered" = "PowerUp") {
    const setup = this.setup!;
    const work = await readStationWork(this.options.db, this.stationId, this.afterSeq());
    if (!work) return;
    await this.adopt(work);
    for (const k of setup.connectors)
      if (k.ocppStatus === "Unavailable" && !this.running.has(k.id)) this.inoperative.add(k.id);
    await this.call(
      connection,
      this.frames.boot(`sbx-${this.stationId}`, setup.nominalPowerW, reason),
    );
    const at = this.virtualNow(work.clockOffsetSeconds);
    for (const connector of setup.connectors)
      await this.call(
        connection,
        this.frames.status(connector, this.connectorState(connector), at),
      );
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      this.enqueue(
        connection,
        async () => void (await this.call(connection, this.frames.heartbeat())),
      );
    }, HEARTBEAT_INTERVAL_SECONDS * 1000);
    this.heartbeat.unref();
    await runChargerReady(this.options.db, { stationId: this.stationId, tenantId: setup.tenantId });
    while (await this.round(connection));
  }

  private afterSeq() {
    const after: Record<string, number> = {};
    for (const tx of this.running.values()) if (tx.sessionId) after[tx.sessionId] = tx.lastSeq;
    return after;
  }

  /**
   * The transactions the gateway has in progress on the station, as this charger keeps them: one
   * it already knows keeps its state (what it reported, a stop it accepted); one it does not (a
   * charger taking over) starts from what was recorded and marked.
   */
  private async adopt(work: StationWork) {
    const setup = this.setup!;
    const running = new Map<number, Running>();
    for (const t of work.transactions) {
      const connector = setup.connectors.find((k) => k.id === t.connectorId);
      if (!connector) continue;
      const known = this.running.get(connector.id);
      if (known && known.reference === t.reference) {
        running.set(connector.id, known);
        continue;
      }
      const session = work.sessions.find((s) => s.transactionId === t.id);
      const applied = session
        ? await readAppliedAdvances(this.options.db, session.id)
        : { energyWh: 0, seq: 0 };
      running.set(connector.id, {
        reference: t.reference,
        connector,
        idToken: "",
        seqNo: applied.seq + 1,
        sessionId: session?.id ?? null,
        meterStartWh: t.meterStartWh,
        meteredWh: applied.energyWh,
        lastSeq: applied.seq,
        lastAt: new Date(0),
        ending: null,
      });
    }
    this.running = running;
  }

  /**
   * One round: read the station's work, start what a predecessor accepted, report pending
   * advances, end what must end, and ask for the starts that are due. True when it sent anything
   * (another round may find more).
   */
  private async round(connection: number): Promise<boolean> {
    const { db } = this.options;
    const setup = this.setup!;
    // A stop asked before this read comes after every advance the read sees (the API commits an
    // advance before it can ask for the stop behind it); one asked during the round is carried
    // out by the next round (the stop asks for one), after the advances that round reads.
    const endingBeforeRead = new Set(
      [...this.running.values()].filter((t) => t.ending).map((t) => t.reference),
    );
    const work = await readStationWork(db, this.stationId, this.afterSeq());
    if (!work || connection !== this.connection) return false;
    await this.adopt(work);
    let sent = false;
    let ready = false;
    for (const session of work.sessions) {
      const connector = setup.connectors.find((k) => k.id === session.connectorId);
      if (!connector) continue;
      const tx = this.running.get(connector.id);
      if (tx && tx.sessionId === session.id && session.stopAsked) {
        tx.ending ??= "Remote";
        endingBeforeRead.add(tx.reference);
      }
      if (session.status !== "starting" || session.transactionId !== null) continue;
      if (session.billStatus === "open") ready = true;
      // The start was accepted (or may have been) and its transaction never reported: the
      // charger that accepted it is gone. Carry it out, as the charger would have.
      const accepted =
        ["starting", "start_unknown"].includes(session.billStatus) &&
        ["succeeded", "unknown"].includes(session.startStatus ?? "");
      if (accepted && !tx && !this.starting.has(connector.id)) {
        const found = await readSessionOnConnector(db, connector.id);
        if (found?.id === session.id) {
          await this.startTransaction(connection, connector, found.chargingToken);
          sent = true;
        }
      }
    }
    for (const tx of [...this.running.values()]) {
      const pending = work.sessions.find((s) => s.id === tx.sessionId)?.pending ?? [];
      const recorded =
        work.transactions.find((t) => t.reference === tx.reference)?.energyWh ?? tx.meteredWh;
      if (await this.report(connection, tx, pending, recorded)) sent = true;
      if (tx.ending && endingBeforeRead.has(tx.reference) && pending.length < PENDING_LIMIT) {
        await this.endTransaction(connection, tx, work.clockOffsetSeconds);
        sent = true;
      }
    }
    if (ready) await runChargerReady(db, { stationId: this.stationId, tenantId: setup.tenantId });
    return sent;
  }

  /**
   * Reports a session's pending advances in `seq` order, each as a meter report of its
   * transaction, and marks each applied once the gateway answered (it recorded the report before
   * it answered). An advance the gateway already recorded (sent by a charger that died before it
   * marked it: `recordedWh` covers it) is marked without being sent again. Sending it again would
   * also be safe: it carries the same register and time, so the gateway's totals do not move.
   */
  private async report(
    connection: number,
    tx: Running,
    pending: PendingAdvance[],
    recordedWh: number,
  ): Promise<boolean> {
    if (!tx.sessionId) return false;
    let sent = false;
    for (const advance of pending) {
      if (advance.seq <= tx.lastSeq) continue;
      const meteredWh = tx.meteredWh + advance.energyWh;
      if (meteredWh > recordedWh) {
        const reading = this.reading(tx.meterStartWh + meteredWh, advance);
        // 2.x seqNo: the advance's own (Started was 0), so a report sent again is the same report
        await this.call(connection, this.frames.meter({ ...tx, seqNo: advance.seq }, reading));
        recordedWh = meteredWh;
        sent = true;
        await this.options.afterReport?.({
          stationId: this.stationId,
          sessionId: tx.sessionId,
          seq: advance.seq,
        });
      }
      tx.meteredWh = meteredWh;
      tx.lastSeq = advance.seq;
      tx.seqNo = advance.seq + 1;
      if (advance.sampledAt > tx.lastAt) tx.lastAt = advance.sampledAt;
      await markAdvanceApplied(this.options.db, tx.sessionId, advance.seq);
    }
    return sent;
  }

  private reading(registerWh: number, advance: PendingAdvance): MeterReading {
    const nominal = this.setup!.nominalPowerW;
    return {
      at: advance.sampledAt,
      registerWh,
      powerW:
        advance.elapsedSeconds > 0
          ? Math.round((advance.energyWh * 3600) / advance.elapsedSeconds)
          : nominal,
      voltageV: voltageOf(nominal),
      socPercent: advance.socPercent,
    };
  }

  private idleReading(registerWh: number, at: Date): MeterReading {
    return {
      at,
      registerWh,
      powerW: 0,
      voltageV: voltageOf(this.setup!.nominalPowerW),
      socPercent: null,
    };
  }

  /**
   * Starts a transaction on the connector with the token it was given: Started (2.x) or
   * StartTransaction (1.6) at the charger's register and clock, then the connector Occupied. A
   * 2.x transaction of a sandbox session is named by the session's id; the gateway names a 1.6
   * one. A token the gateway does not accept ends it at once.
   */
  private async startTransaction(
    connection: number,
    connector: ConnectorRef,
    idToken: string,
    remoteStartId?: number,
  ) {
    const { db } = this.options;
    this.starting.add(connector.id);
    try {
      const clock = await readChargerClock(db, this.stationId);
      if (!clock) return;
      const session = await readSessionOnConnector(db, connector.id);
      const sessionId = session?.chargingToken === idToken ? session.id : null;
      const at = this.virtualNow(clock.clockOffsetSeconds);
      const start = this.idleReading(clock.registerWh, at);
      const tx: Running = {
        reference: sessionId ?? crypto.randomUUID(),
        connector,
        idToken,
        seqNo: 0,
        ...(remoteStartId !== undefined ? { remoteStartId } : {}),
        sessionId,
        meterStartWh: clock.registerWh,
        meteredWh: 0,
        lastSeq: 0,
        lastAt: at,
        ending: null,
      };
      const answer = await this.call(connection, this.frames.started(tx, start));
      tx.seqNo += 1;
      if (this.setup!.protocol === "ocpp1.6") tx.reference = String(answer.transactionId);
      this.running.set(connector.id, tx);
      await this.call(connection, this.frames.status(connector, "Occupied", at));
      const info = (answer.idTagInfo ?? answer.idTokenInfo) as { status?: string } | undefined;
      if (info?.status && info.status !== "Accepted") tx.ending = "DeAuthorized";
    } finally {
      this.starting.delete(connector.id);
    }
  }

  /** Ends the transaction at the register it reported last, then frees its connector. */
  private async endTransaction(connection: number, tx: Running, clockOffsetSeconds: number) {
    const nowAt = this.virtualNow(clockOffsetSeconds);
    const at = nowAt > tx.lastAt ? nowAt : tx.lastAt;
    const reading = this.idleReading(tx.meterStartWh + tx.meteredWh, at);
    await this.call(connection, this.frames.ended(tx, reading, tx.ending ?? "Remote"));
    tx.seqNo += 1;
    this.running.delete(tx.connector.id);
    if (this.inoperativeLater.delete(tx.connector.id)) this.inoperative.add(tx.connector.id);
    await this.call(
      connection,
      this.frames.status(tx.connector, this.connectorState(tx.connector), at),
    );
    if (this.resetWhenIdle && this.running.size === 0) this.reboot(connection);
  }

  /** Closes the socket and connects again, booting anew (a reset). */
  private reboot(connection: number) {
    this.resetWhenIdle = false;
    setImmediate(() => {
      if (connection !== this.connection || this.stopped) return;
      this.rebooting = true;
      const client = this.client;
      this.client = undefined;
      void (async () => {
        try {
          await client?.close({ code: 1000, reason: "rebooting" });
          await this.connect();
        } catch (error) {
          log.warn("sandbox charger reboot failed", { stationId: this.stationId, error });
          if (!this.stopped) this.options.onClosed(this);
        } finally {
          this.rebooting = false;
        }
      })();
    });
  }

  private connectorOf(match: (k: ConnectorRef) => boolean) {
    return this.setup?.connectors.find(match);
  }

  /** Work that follows an answer: queued once the answer has been sent. */
  private afterAnswer(task: (connection: number) => Promise<void>) {
    const connection = this.connection;
    setImmediate(() => this.enqueue(connection, () => task(connection)));
  }

  /**
   * The gateway's calls, answered as a well-behaved charger answers them; anything else is
   * ocpp-rpc's `NotImplemented`.
   */
  private answerCalls(client: RPCClient) {
    const v16 = () => this.setup!.protocol === "ocpp1.6";
    type P = Record<string, unknown>;
    const on = (action: string, answer: (params: P) => P | Promise<P>) =>
      client.handle(action, ({ params }) => Promise.resolve(answer((params ?? {}) as P)));

    const free = (k: ConnectorRef) =>
      !this.running.has(k.id) && !this.starting.has(k.id) && !this.inoperative.has(k.id);
    const start = (
      connector: ConnectorRef | undefined,
      idToken: string,
      remoteStartId?: number,
    ) => {
      if (!connector || !free(connector)) return { status: "Rejected" };
      this.starting.add(connector.id);
      this.afterAnswer(async (connection) => {
        await this.startTransaction(connection, connector, idToken, remoteStartId);
        while (await this.round(connection));
      });
      return { status: "Accepted" };
    };
    on("RequestStartTransaction", (p) => {
      const evseId = p.evseId as number | undefined;
      const connector =
        evseId === undefined
          ? this.setup!.connectors.find(free)
          : this.connectorOf((k) => k.evseNumber === evseId);
      return start(
        connector,
        (p.idToken as { idToken: string }).idToken,
        p.remoteStartId as number,
      );
    });
    on("RemoteStartTransaction", (p) => {
      const connectorId = p.connectorId as number | undefined;
      const connector =
        connectorId === undefined
          ? this.setup!.connectors.find(free)
          : this.connectorOf((k) => k.connectorNumber === connectorId);
      return start(connector, p.idTag as string);
    });

    const stop = (reference: string) => {
      const tx = [...this.running.values()].find((t) => t.reference === reference);
      if (!tx) return { status: "Rejected" };
      tx.ending ??= "Remote";
      this.requestRound();
      return { status: "Accepted" };
    };
    on("RequestStopTransaction", (p) => stop(p.transactionId as string));
    on("RemoteStopTransaction", (p) => stop(String(p.transactionId)));

    on("ChangeAvailability", (p) => {
      const inoperative = (p.operationalStatus ?? p.type) === "Inoperative";
      const evse = p.evse as { id: number; connectorId?: number } | undefined;
      const connectorId = p.connectorId as number | undefined;
      const targets = this.setup!.connectors.filter((k) =>
        v16()
          ? !connectorId || k.connectorNumber === connectorId
          : !evse ||
            (k.evseNumber === evse.id &&
              (evse.connectorId === undefined || k.evseConnectorNumber === evse.connectorId)),
      );
      if (!targets.length) return { status: "Rejected" };
      let scheduled = false;
      for (const k of targets) {
        if (inoperative && this.running.has(k.id)) {
          this.inoperativeLater.add(k.id);
          scheduled = true;
        } else if (inoperative) this.inoperative.add(k.id);
        else {
          this.inoperative.delete(k.id);
          this.inoperativeLater.delete(k.id);
        }
      }
      this.afterAnswer(async (connection) => {
        const clock = await readChargerClock(this.options.db, this.stationId);
        const at = this.virtualNow(clock?.clockOffsetSeconds ?? 0);
        for (const k of targets)
          if (!this.running.has(k.id))
            await this.call(connection, this.frames.status(k, this.connectorState(k), at));
      });
      return { status: scheduled ? "Scheduled" : "Accepted" };
    });

    on("Reset", (p) => {
      const idle = this.running.size === 0;
      const onIdle = p.type === "OnIdle";
      if (idle) {
        this.afterAnswer((connection) => Promise.resolve(this.reboot(connection)));
        return { status: "Accepted" };
      }
      this.resetWhenIdle = true;
      if (onIdle) return { status: "Scheduled" };
      const reason: EndReason = p.type === "Soft" ? "SoftReset" : "HardReset";
      for (const tx of this.running.values()) tx.ending ??= reason;
      this.requestRound();
      return { status: "Accepted" };
    });

    on("TriggerMessage", (p) => {
      const what = p.requestedMessage as string;
      if (!["BootNotification", "Heartbeat", "StatusNotification"].includes(what))
        return { status: "NotImplemented" };
      this.afterAnswer(async (connection) => {
        if (what === "Heartbeat") await this.call(connection, this.frames.heartbeat());
        else if (what === "BootNotification")
          await this.call(
            connection,
            this.frames.boot(`sbx-${this.stationId}`, this.setup!.nominalPowerW, "Triggered"),
          );
        else {
          const clock = await readChargerClock(this.options.db, this.stationId);
          const at = this.virtualNow(clock?.clockOffsetSeconds ?? 0);
          for (const k of this.setup!.connectors)
            await this.call(connection, this.frames.status(k, this.connectorState(k), at));
        }
      });
      return { status: "Accepted" };
    });

    on("UnlockConnector", (p) => {
      const connector = v16()
        ? this.connectorOf((k) => k.connectorNumber === p.connectorId)
        : this.connectorOf(
            (k) => k.evseNumber === p.evseId && k.evseConnectorNumber === p.connectorId,
          );
      if (!connector) return { status: v16() ? "NotSupported" : "UnknownConnector" };
      if (this.running.has(connector.id))
        return { status: v16() ? "UnlockFailed" : "OngoingAuthorizedTransaction" };
      return { status: "Unlocked" };
    });

    const connectorCount = () => this.setup!.connectors.length;
    on("GetVariables", (p) =>
      getVariables(p.getVariableData as Parameters<typeof getVariables>[0], connectorCount()),
    );
    on("SetVariables", (p) =>
      setVariables(p.setVariableData as Parameters<typeof setVariables>[0]),
    );
    on("GetConfiguration", (p) =>
      getConfiguration(p.key as string[] | undefined, connectorCount()),
    );
    on("ChangeConfiguration", (p) => changeConfiguration(p.key as string));
    on("SetChargingProfile", () => ({ status: "Accepted" }));
    on("ClearChargingProfile", () => ({ status: "Accepted" }));
    on("ClearCache", () => ({ status: "Accepted" }));
    on("CostUpdated", () => ({}));
    on("DataTransfer", () => ({ status: "UnknownVendorId" }));
  }
}
