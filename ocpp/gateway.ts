import type { IncomingMessage } from "node:http";
import { requestAllRecomputes } from "../server/site-limits/recompute";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Duplex } from "node:stream";
import { RPCServer } from "ocpp-rpc";
// every domain's operation kinds and charger-transaction hooks, before anything uses them
import "../server/domains";
import { poolSizeOf, type Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import {
  ConnectionReplaced,
  lockConnection,
  releaseStationsOf,
  type ChargerContext,
} from "../server/charging/connections";
import {
  GATEWAY_HEARTBEAT_MS,
  gatewayQueue,
  recordGatewayHeartbeat,
  recordGatewayStopped,
  registerGateway,
} from "../server/charging/gateways";
import type { Prisma } from "../server/generated/prisma/client";
import type { JobDefinition } from "../server/jobs/define-job";
import { OPERATION_CALL_TIMEOUT_MS } from "../server/operations/operation-jobs";
import { newId } from "../server/lib/ids";
import { log } from "../server/log";
import { dummyPasswordHash, verifyPassword } from "../server/lib/passwords";
import {
  authenticateStation,
  quickAuthenticateStation,
  type StationSession,
} from "../server/charging/authenticate-station";
import { configuredVerifierKey } from "../server/lib/password-verifier";
import { STATION_NAME_PATTERN } from "../server/stations/station-schema";
import type { DomainCertificates } from "./domain-certificates";
import {
  chargerUrlsOffered,
  loadChargerUrls,
  parseChargerId,
} from "../server/stations/charger-urls";
import {
  DEFAULT_AUTH_LIMITS,
  attemptBuckets,
  chargerAddress,
  mayBeProxy,
  reserveAttempt,
  type AuthLimits,
} from "./auth-limits";
import {
  DEFAULT_CHECK_QUEUE,
  DEFAULT_HANDSHAKE_GATE,
  HANDSHAKE_HOLD_MS,
  createCheckQueue,
  type CheckQueueOptions,
  type Turn,
} from "./auth-queue";
import { createRefusalPace } from "./refusal-pace";
import { PROTOCOLS, strictModeValidators } from "./protocol/validators";
import { callFailure } from "./protocol/call-errors";
import { GuardedSocket } from "./protocol/frame-guard";
import { refuseUnstorable } from "./protocol/storable";
import { runOperations } from "./operations";
import { askTransactionStatus } from "../server/charging/transaction-status";
import { createCallWriter } from "./call-writer";
import {
  ADMITTED_POOL_WAIT_MS,
  createCallAdmission,
  isBusyError,
  type BusyReason,
  type CallAdmissionOptions,
} from "./call-admission";
import { batchableMeterMessage } from "../server/charger-reports/meter-batch";
import type {
  CallOutcome,
  StationCall,
  StationMessage,
} from "../server/charger-reports/call-batch";
import { createLastSeen, type LastSeenOptions } from "./last-seen";
import { createConnectionRecorder } from "./connection-recorder";
import { releaseHandshake, type KeptHandshake } from "./release-handshake";
import { createHandshakePace } from "./handshake-pace";
import { countInto, metrics } from "../server/metrics/registry";
import { answerPolitely } from "./handlers/fallback";
import { v16Batchable, v16Handlers } from "./handlers/v16";
import { v2Batchable, v2Handlers } from "./handlers/v2";
import type { ValidatedHandler } from "./handlers/types";
import { meteredHandshake, observeCall } from "./metrics";
import { finishStation, markName, markStation, nameIsStation } from "./phase-trace";

/** Charger calls that record nothing a retry could apply twice. */
const STATELESS_ACTIONS = new Set(["Heartbeat", "Authorize"]);
/** The shortest time between two log lines about calls answered busy. */
const BUSY_LOG_MS = 10_000;

/** Largest OCPP-J frame accepted; bigger frames close the connection (1009) before parsing. */
export const MAX_FRAME_BYTES = 256 * 1024;

export type Gateway = {
  id: string;
  /**
   * The jobs that need this gateway's sockets, on its own `queue`: the process's job runner must
   * serve that queue with these definitions (besides the shared ones).
   */
  queue: string;
  jobs: readonly JobDefinition[];
  connectionCount: () => number;
  handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  close: () => Promise<void>;
};

/** One socket of a station, as its calls see it. */
type Connection = {
  charger: ChargerContext;
  handlers: ReadonlyMap<string, ValidatedHandler>;
  batchable: ReadonlyMap<string, (payload: unknown) => StationCall>;
  /** its generation once its connect is recorded; rejects when it never was */
  generation: Promise<number>;
  /** closes the socket: a newer connection of the station was recorded */
  replaced: () => void;
};

type Client = {
  identity: string;
  protocol: string;
  session: StationSession;
  handshake?: KeptHandshake;
  handle: (
    handler: (call: { method: string; params: unknown; messageId: string }) => unknown,
  ) => void;
  call: (method: string, params: unknown, options?: { callTimeoutMs?: number }) => Promise<unknown>;
  close: (options?: { code?: number; reason?: string; force?: boolean }) => Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): void;
  off(event: string, listener: (...args: never[]) => void): void;
};

export type GatewayOptions = {
  db: Db;
  databaseUrl: string;
  callTimeoutMs?: number;
  /**
   * The custom OCPP domains this gateway serves (`ocpp/domain-certificates.ts`): a handshake that
   * names one (by SNI or Host) must come over TLS and be a station of that domain's project
   * (`domainRule`). Without it no hostname is treated as a custom domain.
   */
  domains?: Pick<DomainCertificates, "domain">;
  /**
   * charger handshakes: limits, the gate every handshake passes (`gate`), the turns scrypt checks
   * take (`queue`), and the scrypt verifier (tests wrap it to watch it)
   */
  auth?: {
    limits?: Partial<AuthLimits>;
    gate?: Partial<CheckQueueOptions>;
    queue?: Partial<CheckQueueOptions>;
    verifyPassword?: (password: Buffer, hash: string) => Promise<boolean>;
  };
  /**
   * the line of calls recorded one per transaction (`createCallAdmission`); `slots` defaults to
   * the size of `db`'s pool
   */
  admission?: Partial<CallAdmissionOptions>;
  /** how `last_seen` is written (`createLastSeen`; tests shorten the interval) */
  lastSeen?: Partial<Pick<LastSeenOptions, "flushMs" | "minIntervalMs">>;
  /**
   * new connections taken a second at most (`createHandshakePace`: `perSecond` is this process's
   * share of `OCPP_HANDSHAKES_PER_SECOND`); unset, upgrades go straight to the gate
   */
  handshakePace?: Parameters<typeof createHandshakePace>[0];
};

/**
 * The charger-facing side of an `ocpp` process: accepts OCPP-J websockets at /ocpp/<station name>,
 * authenticates them (HTTP Basic, security profile 1; on a custom domain's name TLS is required
 * and only that project's stations get in, `domainRule`), validates every message against the
 * official schemas both ways, records what chargers report, and sends operator commands to the
 * stations whose sockets it holds. Registers itself in `gateways` with a heartbeat so the API and
 * other gateways know which process owns which station.
 */
export async function createGateway({
  db,
  databaseUrl,
  callTimeoutMs = OPERATION_CALL_TIMEOUT_MS,
  auth = {},
  domains,
  admission: admissionOptions,
  lastSeen: lastSeenOptions,
  handshakePace: paceOptions,
}: GatewayOptions): Promise<Gateway> {
  const id = newId("gw");
  await registerGateway(db, id);
  // site power limits are divided anew from the database (server/site-limits/README.md)
  await requestAllRecomputes(db);
  // Made now, so no charger's handshake pays for it; one check against it is the first measure
  // of how long a refusal takes, until handshakes give better ones.
  const pace = createRefusalPace();
  const timed = performance.now();
  await verifyPassword(Buffer.alloc(0), await dummyPasswordHash());
  pace.checked(performance.now() - timed);
  /** the station's current connection on this gateway, once its connect is recorded */
  const clients = new Map<number, { client: Client; generation: number }>();
  /** disconnects being written; close() waits for them before the process lets its pool go */
  const disconnects = new Set<Promise<void>>();
  const records = createConnectionRecorder({ db, gatewayId: id });
  const lastSeen = createLastSeen({ db, ...lastSeenOptions });

  const server = new RPCServer({
    protocols: [...PROTOCOLS],
    strictMode: true,
    strictModeValidators,
    callTimeoutMs,
    pingIntervalMs: 30_000,
    respondWithDetailedErrors: false,
    // Frames pass the frame guard (message ID length, depth, errors in the protocol's words).
    wssOptions: { maxPayload: MAX_FRAME_BYTES, WebSocket: GuardedSocket },
  });

  type Accept = (session: StationSession, protocol?: string) => void;
  type Reject = (code: number, message: string) => void;
  type Handshake = {
    identity: string;
    password?: Buffer;
    endpoint: string;
    protocols: Set<string>;
    remoteAddress?: string;
    headers: IncomingMessage["headers"];
    request: IncomingMessage;
  };
  server.auth(
    (accept: Accept, reject: Reject, handshake: Handshake, signal?: AbortSignal) =>
      void authenticate(...meteredHandshake(accept, reject), handshake, signal),
  );

  const limits = { ...DEFAULT_AUTH_LIMITS, ...auth.limits };
  const handshakePace = paceOptions ? createHandshakePace(paceOptions) : null;
  const uncountWaiting = handshakePace
    ? countInto("handshakesWaiting", () => handshakePace.stats().waiting)
    : () => undefined;
  const gate = createCheckQueue({ ...DEFAULT_HANDSHAKE_GATE, ...auth.gate });
  const checks = createCheckQueue({ ...DEFAULT_CHECK_QUEUE, ...auth.queue });
  const verify = auth.verifyPassword ?? verifyPassword;
  const verifierKey = configuredVerifierKey();
  /** the gate turn of an accepted handshake, given back once its connection is recorded */
  const admitted = new WeakMap<StationSession, () => void>();

  const refuseTurn = (
    reject: Reject,
    refuseUnchecked: Reject,
    reason: Extract<Turn, { ok: false }>["reason"],
  ) =>
    reason === "busy" || reason === "gone"
      ? reject(503, "Service Unavailable")
      : refuseUnchecked(
          429,
          reason === "name"
            ? "This station's previous handshake is still being checked; retry later."
            : "Too many handshakes from this address at once; retry later.",
        );

  /**
   * HTTP Basic (security profile 1) before the upgrade. Every handshake first passes the gate (a
   * bounded line; 503 at once when it is full or after a short wait, and the charger retries), which
   * a reconnecting charger holds until its connection is recorded, so a storm's database work stays
   * within what the pool serves. A password that matches the station's keyed verifier for its
   * current hash is accepted without scrypt (`quickAuthenticateStation`, one query, still refused
   * past the attempt limits). Anything else leaves the gate and takes the full check: attempts are
   * limited per station name and per client address (`reserveAttempt`, shared by every gateway)
   * and refused past the limit without checking the password (429; ocpp-rpc's reject cannot add
   * Retry-After, so the wait is in the body). Checks take turns by address, one at a time per name
   * (`createCheckQueue`), so guessing cannot take the threads scrypt runs on from other chargers.
   * The check itself is `authenticateStation` (a dummy hash for unknown names: every refusal of
   * a password costs one scrypt and reads 401). A 429, which checks nothing, is held until it has
   * taken as long as a checked refusal (`createRefusalPace`), so timing does not tell which names
   * exist, have a verifier, or are locked. (503s depend on load alone and are answered at once.)
   */
  async function authenticate(
    accept: Accept,
    reject: Reject,
    handshake: Handshake,
    signal?: AbortSignal,
  ) {
    const started = performance.now();
    const refuseUnchecked: Reject = (code, message) => {
      const hold = pace.holdMs(performance.now() - started);
      if (hold > 0) setTimeout(() => reject(code, message), hold).unref();
      else reject(code, message);
    };
    try {
      if (handshake.endpoint.replace(/\/+$/, "") !== "/ocpp") return reject(404, "Not Found");
      const protocol = PROTOCOLS.find((p) => handshake.protocols.has(p));
      if (!protocol) return reject(400, "Unsupported subprotocol");
      // A preproduction charger ID (`p<tenant>-<name>`, server/stations/charger-urls.ts) names
      // the station `<name>` of that tenant, while staff have not turned the tenant's off.
      const scoped = chargerUrlsOffered() ? parseChargerId(handshake.identity) : null;
      const name = scoped?.name ?? handshake.identity;
      // No password, or a name no station can have: nothing is being guessed.
      if (!handshake.password || !STATION_NAME_PATTERN.test(name))
        return reject(401, "Unauthorized");
      if (scoped && !(await loadChargerUrls(db, scoped.tenantId))?.enabled)
        return reject(401, "Unauthorized");
      const ofTenant = (session: StationSession) => !scoped || session.tenantId === scoped.tenantId;
      const rule = domainRule(handshake);
      if (!rule.ok) return reject(403, rule.message);
      /** a custom domain takes only its own project's stations (after the password: see README) */
      const outsider = (session: StationSession) =>
        rule.tenantId !== null && session.tenantId !== rule.tenantId;
      const OUTSIDER = "This station does not connect through this hostname.";
      const address = chargerAddress(handshake.remoteAddress, handshake.headers["x-forwarded-for"]);
      markName(name, "handshake");
      const entry = await gate.take(address, name.toLowerCase(), signal);
      markName(name, "gate");
      if (!entry.ok) return refuseTurn(reject, refuseUnchecked, entry.reason);
      let held = false;
      try {
        if (signal?.aborted) return;
        if (verifierKey) {
          const quick = await quickAuthenticateStation({
            db,
            name,
            password: handshake.password,
            buckets: attemptBuckets(name, address, limits),
            windowMs: limits.windowMs,
            verifierKey,
          });
          markName(name, "verified");
          if (quick.outcome === "limited")
            return refuseUnchecked(
              429,
              `Too many failed attempts; retry in ${quick.retryAfterSeconds} s.`,
            );
          if (quick.outcome === "accepted" && ofTenant(quick.session)) {
            if (outsider(quick.session)) return reject(403, OUTSIDER);
            held = true;
            entry.freeName();
            admitted.set(quick.session, entry.done);
            // A socket that closes before it opens never records a connection.
            setTimeout(entry.done, HANDSHAKE_HOLD_MS).unref();
            nameIsStation(name, quick.session.stationId);
            markStation(quick.session.stationId, "accepted");
            return accept(quick.session, protocol);
          }
        }
      } finally {
        if (!held) entry.done();
      }
      const turn = await checks.take(address, name.toLowerCase(), signal);
      if (!turn.ok) return refuseTurn(reject, refuseUnchecked, turn.reason);
      try {
        if (signal?.aborted) return;
        const reserved = await reserveAttempt({ db, name, address, limits });
        if (!reserved.allowed)
          return refuseUnchecked(
            429,
            `Too many failed attempts; retry in ${reserved.retryAfterSeconds} s.`,
          );
        const session = await authenticateStation({
          db,
          name,
          password: handshake.password,
          verify,
          verifierKey,
        });
        if (!session || !ofTenant(session)) {
          pace.checked(performance.now() - started);
          return reject(401, "Unauthorized");
        }
        if (outsider(session)) {
          await reserved.giveBack(); // the password was right: not a failed attempt
          return reject(403, OUTSIDER);
        }
        accept(session, protocol);
        turn.done(); // before the answer reaches the charger, which may reconnect at once
        await reserved.giveBack();
      } finally {
        turn.done();
      }
    } catch (error) {
      log.error("ocpp auth failed", { error });
      reject(503, "Service Unavailable");
    }
  }

  /**
   * Security profile 2 on custom domains (ocpp/README.md, "Custom domains"). The names a handshake
   * came by: the TLS SNI name (the gateway's own TLS listener) and the Host header (also what a
   * TLS proxy in front passes on). When one is a custom domain this gateway serves, the
   * connection must be TLS: this socket's own, or a proxy's (`X-Forwarded-Proto: https` from a
   * loopback or private peer); a plain one is refused before any password is checked. The
   * station must then belong to the domain's project (`tenantId`). Two names of two projects
   * (SNI one domain, Host another) are refused.
   */
  function domainRule(
    handshake: Handshake,
  ): { ok: true; tenantId: number | null } | { ok: false; message: string } {
    if (!domains) return { ok: true, tenantId: null };
    const socket = handshake.request.socket as Partial<TLSSocket>;
    const names = new Set<string>();
    if (typeof socket.servername === "string") names.add(socket.servername);
    const host = hostOf(handshake.headers.host);
    if (host) names.add(host);
    const tenants = new Set<number>();
    for (const name of names) {
      const domain = domains.domain(name);
      if (domain) tenants.add(domain.tenantId);
    }
    if (!tenants.size) return { ok: true, tenantId: null };
    if (tenants.size > 1) return { ok: false, message: "The TLS name and the Host disagree." };
    const proxiedTls =
      handshake.headers["x-forwarded-proto"] === "https" &&
      mayBeProxy(handshake.remoteAddress ?? "");
    if (!socket.encrypted && !proxiedTls)
      return { ok: false, message: "A custom domain takes TLS (wss://) with HTTP Basic." };
    return { ok: true, tenantId: [...tenants][0]! };
  }

  server.on("client", (raw: unknown) => {
    const client = raw as Client;
    void onClient(client).catch((error: unknown) => {
      log.error("ocpp client setup failed", { station: client.session.stationId, error });
      void client.close({ code: 1011, force: true });
    });
  });

  /**
   * A connection's life, in the order the gateway sees it: its connect is recorded first, and its
   * calls wait for that (each is written after its `station.connected`, carrying the connection's
   * generation); once it closes, the calls it had sent are finished, then its disconnect is
   * recorded. A newer connection of the station recorded meanwhile ends this one (its
   * `station.disconnected` is written with the newer connect, see `recordConnectionChanges`), and
   * from then on none of this connection's writes lands: each is fenced on its generation.
   */
  async function onClient(client: Client) {
    releaseHandshake(client.handshake);
    const { stationId, tenantId } = client.session;
    const station = { id: stationId, tenantId };
    const v16 = client.protocol === "ocpp1.6";
    markStation(stationId, "client");
    // A 1.6 charger's connect waits a moment for its first call to ride along (below).
    const { recorded: connected, ride } = records.connect(station, client.protocol, v16);
    const connection: Connection = {
      charger: { stationId, tenantId, protocol: client.protocol },
      handlers: v16 ? v16Handlers : v2Handlers,
      batchable: v16 ? v16Batchable : v2Batchable,
      generation: connected.then((recorded) => {
        markStation(stationId, "connected");
        if (!recorded) throw new ConnectionReplaced(stationId, null);
        lastSeen.connected(stationId, recorded.at.getTime()); // written with the connect
        return recorded.generation;
      }),
      // after the answers it is still sending (the refusal of the call that found it replaced)
      replaced: () => void client.close({ code: 1000, reason: "replaced by a newer connection" }),
    };
    connection.generation.catch(() => {}); // each call, and the close, look at it
    // The close listener goes on before the first await: a socket that closes while its connect is
    // still being recorded must still be recorded offline (and never enter `clients`).
    let closed = false;
    // A 2.x charger's queued messages are answered once the service asked it about the
    // transactions it still has open (`checkOpenTransactions`); settled whatever becomes of that.
    let checked!: () => void;
    const openTransactionsChecked = new Promise<void>((resolve) => (checked = resolve));
    // One station's calls run one after another (OCPP-J chargers wait for each answer anyway), so a
    // retried message finds the first one's record, and status changes apply in arrival order.
    let queue: Promise<unknown> = connection.generation
      .then(() => openTransactionsChecked)
      .catch(() => {});
    // A 1.6 charger's first call, a BootNotification or StatusNotification that comes while its
    // connect still waits to be written, is recorded in the connect's transaction (`ride`): one
    // commit for both instead of two in a row. (A 2.x charger's calls wait for the check above.)
    let first = v16;
    client.handle(({ method, params, messageId }) => {
      refuseUnstorable(client.protocol, method, params);
      markStation(stationId, `${method}.received`);
      const along = first ? rideAlong(connection, ride, method, params, messageId) : null;
      first = false;
      const next = along
        ? observeCall(method, answerRide(connection, along, method, params, messageId))
        : queue.then(() => observeCall(method, handleCall(connection, method, params, messageId)));
      queue = next.catch(() => {});
      return next;
    });
    client.on("close", () => {
      closed = true;
      if (clients.get(stationId)?.client === client) {
        clients.delete(stationId);
        lastSeen.forget(stationId);
      }
      // The calls it sent before the close are recorded before its disconnect.
      const recording = queue
        .then(() => connection.generation)
        .then(
          (generation) => records.disconnected(station, generation),
          () => undefined, // the connect was never recorded: nothing to undo
        )
        .catch((error: unknown) =>
          log.error("recording a disconnect failed", { stationId, error }),
        );
      disconnects.add(recording);
      void recording.finally(() => disconnects.delete(recording));
    });
    try {
      const recorded = await connected.finally(() => admitted.get(client.session)?.());
      if (!recorded) {
        log.info("station connection refused: a newer one is held elsewhere", { stationId });
        connection.replaced();
        return;
      }
      if (closed) return;
      const previous = clients.get(stationId);
      clients.set(stationId, { client, generation: recorded.generation });
      if (previous && previous.client !== client)
        void previous.client.close({ code: 1000, reason: "replaced by a new connection" });
      log.info("station connected", { stationId, protocol: client.protocol });
      if (!v16) await checkOpenTransactions(station);
    } finally {
      checked();
    }
  }

  /**
   * A 2.x charger that connects while the service has transactions of it open may have ended them,
   * or hold their messages, while it was away: it is asked (GetTransactionStatus, one operation per
   * transaction, `askTransactionStatus`) before its queued messages are recorded. A failure here is
   * logged; the messages are recorded anyway, as they were before.
   */
  async function checkOpenTransactions(station: { id: number; tenantId: number }) {
    try {
      const asked = await askTransactionStatus({ db, station, gatewayId: id });
      if (asked.length) await operations.sendAndSettle(asked);
    } catch (error) {
      log.error("asking a reconnected charger about its open transactions failed", {
        stationId: station.id,
        error,
      });
    }
  }

  /**
   * One charger call: applied once per message id (a retried message gets the stored answer), in
   * one transaction with everything it records. Must not throw for bad input: the reply is an
   * OCPP CALLERROR and the connection stays up.
   */
  const batches = createCallWriter({ db });
  /** calls answered busy since the last log line about them */
  let busyUnlogged = 0;
  let busyLoggedAt = -Infinity;
  /**
   * A call answered busy: counted in `chargecloud_ocpp_calls_busy_total`, and logged at most once
   * every `BUSY_LOG_MS` with the number since the last line (a burst that overflows the line would
   * otherwise write a line per call).
   */
  const noteBusy = (reason: BusyReason) => {
    metrics().ocppCallsBusy.inc({ reason });
    busyUnlogged++;
    const now = performance.now();
    if (now - busyLoggedAt < BUSY_LOG_MS) return;
    log.warn("charger calls answered busy (not recorded; their chargers retry)", {
      calls: busyUnlogged,
      reason,
      ...admission.stats(),
    });
    busyUnlogged = 0;
    busyLoggedAt = now;
  };
  /** calls recorded alone wait their turn here, not in the pool (ocpp/call-admission.ts) */
  const admission = createCallAdmission({
    slots: poolSizeOf(db) ?? 10,
    onBusy: noteBusy,
    ...admissionOptions,
  });
  const uncountCalls = countInto("callsWaiting", () => admission.stats().waiting);

  /** The first call as a ride with its connection's connect, or null when it cannot ride. */
  function rideAlong(
    connection: Connection,
    ride: (message: StationMessage) => Promise<CallOutcome> | null,
    method: string,
    params: unknown,
    messageId: string,
  ) {
    const read = connection.batchable.get(method);
    if (!read) return null;
    try {
      const along = ride({
        ...read(params),
        charger: connection.charger,
        messageId,
        action: method,
      });
      if (along) markStation(connection.charger.stationId, `${method}.ride`);
      return along;
    } catch {
      return null; // bad input: the ordinary path answers it
    }
  }

  /** A ride's answer; one its transaction did not record is recorded alone, as any call. */
  async function answerRide(
    connection: Connection,
    along: Promise<CallOutcome>,
    method: string,
    params: unknown,
    messageId: string,
  ) {
    const outcome = await along;
    if (!("response" in outcome)) return handleCall(connection, method, params, messageId);
    const { stationId } = connection.charger;
    markStation(stationId, `${method}.answered`);
    if (method === "StatusNotification") finishStation(stationId);
    lastSeen.seen(stationId, await connection.generation);
    return outcome.response;
  }

  async function handleCall(
    { charger, handlers, batchable, ...connection }: Connection,
    method: string,
    params: unknown,
    messageId: string,
  ) {
    const handler = handlers.get(method);
    if (!handler) return answerPolitely(charger.protocol, method);
    try {
      const generation = await connection.generation;
      const read = batchable.get(method);
      const meter =
        STATELESS_ACTIONS.has(method) || read
          ? null
          : batchableMeterMessage(charger, method, messageId, params);
      // Heartbeat's only record: `createLastSeen` writes it (for this connection only). A
      // MeterValues takes its mark into its batch, which writes it with its station row's update.
      const seenAt = meter ? lastSeen.claim(charger.stationId) : null;
      if (!meter) lastSeen.seen(charger.stationId, generation);
      // Heartbeat and Authorize change nothing that a retry could double: no dedup record needed.
      if (STATELESS_ACTIONS.has(method)) return await handler(db, charger, params);
      // Boot, status and meter reports go in batches across stations (group commit); what a
      // batch leaves to be recorded alone comes here.
      const call = read ? { ...read(params), charger, messageId, action: method } : meter;
      if (call) {
        markStation(charger.stationId, `${method}.submitted`);
        const outcome = await batches.submit({
          ...call,
          ...(meter && seenAt ? { seenAt } : {}),
          generation,
        });
        markStation(charger.stationId, `${method}.answered`);
        if (method === "StatusNotification") finishStation(charger.stationId);
        if ("response" in outcome) return outcome.response;
        if (seenAt) lastSeen.release(charger.stationId, generation, seenAt);
      }
      // A turn in the gateway's line first: a burst waits there, not past the pool's maxWait.
      const done = await admission.enter();
      // Run again after a deadlock or serialization failure: the charger gets its answer either way.
      return await inTransaction(
        db,
        async (tx) => {
          // First (the lock order at appendEvent), and only while this connection is the station's.
          await lockConnection(tx, charger.stationId, generation);
          // One record per (station, message id): the key also holds the partition's created_at,
          // so the station lock above and this lookup first are what keep it one.
          const key = { stationId: charger.stationId, messageId };
          const seen = await tx.chargerMessage.findFirst({ where: key });
          if (seen && seen.action === method) return seen.response as Record<string, unknown>;
          const response = await handler(tx, charger, params);
          if (seen) await tx.chargerMessage.deleteMany({ where: key });
          await tx.chargerMessage.create({
            data: { ...key, action: method, response: response as Prisma.InputJsonObject },
          });
          return response;
        },
        // At most `slots` of these wait for a connection at once: past the others' transactions.
        { maxWait: ADMITTED_POOL_WAIT_MS, timeout: 15_000 },
      ).finally(done);
    } catch (error) {
      const failure = callFailure(error);
      if (error instanceof ConnectionReplaced) {
        log.info("a call of a replaced connection was not recorded", { ...charger, method });
        connection.replaced();
      } else if (isBusyError(error)) {
        // counted and logged by `noteBusy`
      } else if (failure.refused)
        log.warn("charger call refused", { stationId: charger.stationId, method, error });
      else log.error("charger call failed", { stationId: charger.stationId, method, error });
      throw failure.error;
    }
  }

  const heartbeat = setInterval(() => {
    recordGatewayHeartbeat(db, id).catch((error: unknown) =>
      log.warn("gateway heartbeat failed", { error }),
    );
  }, GATEWAY_HEARTBEAT_MS);
  heartbeat.unref();

  const operations = await runOperations({
    db,
    databaseUrl,
    gatewayId: id,
    localClient: (stationId) => clients.get(stationId)?.client,
    localStationIds: () => [...clients.keys()],
    disconnect: (stationId) =>
      void clients
        .get(stationId)
        ?.client.close({ code: 1000, reason: "station removed", force: true }),
    callTimeoutMs,
  });

  return {
    id,
    queue: gatewayQueue(id),
    jobs: operations.jobs,
    connectionCount: () => clients.size,
    handleUpgrade: (req, socket, head) => {
      if (!handshakePace) return void server.handleUpgrade(req, socket as Socket, head);
      handshakePace.admit(
        req,
        socket,
        () => void server.handleUpgrade(req, socket as Socket, head),
      );
    },
    close: async () => {
      clearInterval(heartbeat);
      uncountWaiting();
      uncountCalls();
      handshakePace?.close();
      await operations.stop();
      const open = [...clients.values()].map(({ client }) => client);
      const closing = { code: 1001, reason: "gateway stopping", awaitPending: false, force: true };
      // RPCServer.close does not wait for its clients' sockets; each close() here does.
      await Promise.all([server.close(closing), ...open.map((client) => client.close(closing))]);
      await Promise.all(disconnects);
      await lastSeen.stop();
      await recordGatewayStopped(db, id).catch((error: unknown) =>
        log.error("recording the gateway's stop failed", { error }),
      );
      // Stations this process held are offline now (also those whose socket was still opening).
      await releaseStationsOf({ db, gatewayIds: [id] }).catch((error: unknown) =>
        log.error("recording the disconnects of the gateway's stations failed", { error }),
      );
    },
  };
}

/** The host of a Host header, without its port, lower-cased ("[::1]:9000" → "::1"). */
function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  const host = header.startsWith("[")
    ? header.slice(1, header.indexOf("]"))
    : header.replace(/:\d+$/, "");
  return host.toLowerCase().replace(/\.$/, "") || null;
}
