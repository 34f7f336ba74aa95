/**
 * The OCPP gateway process: charger websockets at /ocpp/<station name>, a health probe at /health,
 * and one job runner for every background job (server/background-jobs.ts) and for the gateway's
 * own jobs on its queue. Run N copies against one database: the jobs table shares the work among
 * them.
 */
import type { AddressInfo, ListenOptions, Server } from "node:net";
// every domain's operation kinds and charger-transaction hooks, before anything uses them
import "../server/domains";
import { BACKGROUND_JOBS } from "../server/background-jobs";
import { closeDb, db } from "../server/db";
import { applyMigrations } from "../server/db/migrate";
import { envOrExit } from "../server/env";
import { DEFAULT_QUEUE } from "../server/jobs/define-job";
import { startJobRunner } from "../server/jobs/runner";
import { log } from "../server/log";
import { joinMetricsGroup } from "../server/metrics/process-group";
import { PROCESS_NAME_VARIABLE } from "../server/process-group";
import { metrics } from "../server/metrics/registry";
import { createGateway } from "./gateway";
import { joinHealthGroup } from "./health";
import { ownHosts } from "../server/ocpp-domains/manage-domains";
import { startDomainCertificates } from "./domain-certificates";
import { createAcmeChallengeServer, createDomainTlsServer, createOcppServer } from "./http-server";
import { startSandboxHost } from "./sandbox/host";

/** Connections the kernel may hold for the gateway to accept. */
const OCPP_ACCEPT_BACKLOG = 4_096;

/**
 * Listens, or fails the start: a port taken (EADDRINUSE) ends the process with its error instead
 * of leaving it running without a listener (the process-wide uncaughtException handler below would
 * otherwise swallow the server's "error" event).
 */
function listen(server: Server, options: ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

async function main() {
  const config = envOrExit();
  if (!config.databaseUrl) {
    console.error(
      "config error: DATABASE_URL is required for the ocpp process (npm start sets it)",
    );
    process.exit(1);
  }
  // Safe when `npm start` already did it: migrations run under an advisory lock, once each.
  await applyMigrations(config.databaseUrl, { log: (line) => log.info(line) });
  await db().$queryRaw`SELECT 1`;

  // custom OCPP domains: the certificates served by SNI, and whose project each name is
  const tls = config.ocppTls ?? undefined;
  const certificates = await startDomainCertificates({
    db: db(),
    databaseUrl: config.databaseUrl,
    defaultTls: tls ?? null,
    ownHosts: ownHosts(),
  });
  const gateway = await createGateway({
    db: db(),
    databaseUrl: config.databaseUrl,
    domains: certificates,
    ...(config.ocppHandshakesPerSecond && {
      handshakePace: { perSecond: config.ocppHandshakesPerSecond },
    }),
  });
  const jobs = await startJobRunner({
    db: db(),
    databaseUrl: config.databaseUrl,
    definitions: [...BACKGROUND_JOBS, ...gateway.jobs],
    queues: [DEFAULT_QUEUE, gateway.queue],
  });
  // Several processes on one port under `npm start`: a scrape of /metrics and a probe of /health
  // answer for all of them.
  const name = process.env[PROCESS_NAME_VARIABLE] ?? `ocpp-${process.pid}`;
  const grouped = config.ocppProcesses > 1 && process.connected;
  const exposition = grouped
    ? {
        group: {
          name,
          metricsExposition: joinMetricsGroup(() => metrics().registry.getMetricsAsJSON(), name),
          gatherHealth: joinHealthGroup(gateway),
        },
      }
    : {};
  const server = createOcppServer({ gateway, db: db(), ...exposition, ...(tls ? { tls } : {}) });
  // A reconnect storm opens thousands of connections at once: past the accept queue (Node's
  // default 511) the kernel drops them and each charger waits out a TCP retransmit. The kernel
  // caps this at net.core.somaxconn.
  // Several gateway processes (OCPP_PROCESSES, started by `npm start`) each listen on the same
  // ports with SO_REUSEPORT: the kernel spreads new connections among them, and a process that
  // dies takes only its own chargers with it (ARCHITECTURE.md, "Several gateway processes").
  const reusePort = config.ocppProcesses > 1;
  await listen(server, { port: config.ocppPort, backlog: OCPP_ACCEPT_BACKLOG, reusePort });
  const domainTls = config.ocppDomains.tlsPort
    ? createDomainTlsServer({
        gateway,
        db: db(),
        certificates,
        ...exposition,
        ...(tls ? { defaultTls: tls } : {}),
      })
    : null;
  if (domainTls)
    await listen(domainTls, {
      port: config.ocppDomains.tlsPort ?? 443,
      backlog: OCPP_ACCEPT_BACKLOG,
      reusePort,
    });
  const challenges = config.ocppDomains.httpChallengePort ? createAcmeChallengeServer(db()) : null;
  if (challenges)
    await listen(challenges, { port: config.ocppDomains.httpChallengePort ?? 80, reusePort });
  // The sandbox's virtual chargers connect to this very listener, on loopback, as chargers do.
  const { port } = server.address() as AddressInfo;
  const sandbox = await startSandboxHost({
    db: db(),
    databaseUrl: config.databaseUrl,
    gatewayId: gateway.id,
    ocppUrl: `${tls ? "wss" : "ws"}://127.0.0.1:${port}/ocpp`,
    ...(tls ? { tls } : {}),
  });
  log.info("ocpp gateway listening", {
    port: config.ocppPort,
    tls: Boolean(tls),
    domains_tls_port: config.ocppDomains.tlsPort,
    gateway_id: gateway.id,
    job_runner: jobs.id,
    reuse_port: reusePort,
  });
  // Under `npm start`: tells the supervisor this process listens (with several processes on one
  // port, a probe of /health reaches whichever the kernel picks, so each says so itself).
  if (process.connected)
    process.send?.({ ocpp: "listening", gateway_id: gateway.id, pid: process.pid });

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals | "supervisor gone") => {
    // Under `npm start` a Ctrl-C brings two signals (the terminal's SIGINT, then the supervisor's
    // SIGTERM): a second one must not cut short the first one's recording.
    if (stopping) return log.info("ocpp gateway already stopping", { signal });
    stopping = true;
    log.info("ocpp gateway stopping", { signal, gateway_id: gateway.id });
    // Below the supervisor's 10 s grace: a step that hangs ends in exit code 1, not a SIGKILL.
    setTimeout(() => {
      log.error("ocpp gateway did not stop within 8 s; exiting");
      process.exit(1);
    }, 8_000).unref();
    let code = 0;
    try {
      server.close();
      domainTls?.close();
      challenges?.close();
      await certificates.close();
      // The virtual chargers close and their leases go back at once: another gateway adopts them.
      await sandbox.stop();
      // Jobs still running after 3 s are left to their leases: another runner takes them over.
      await jobs.stop(3_000);
      // Records every station's disconnect and this gateway's stop while the database is there.
      await gateway.close();
      log.info("ocpp gateway stopped", { gateway_id: gateway.id });
    } catch (error) {
      log.error("ocpp gateway stop failed", { error });
      code = 1;
    }
    await closeDb().catch((error: unknown) => log.error("closing the database failed", { error }));
    process.exit(code);
  };
  process.on("SIGINT", (signal) => void shutdown(signal));
  process.on("SIGTERM", (signal) => void shutdown(signal));
  // Under `npm start`: the IPC channel to it closed, so it is gone (even a `kill -9` closes it).
  // Stop as for a signal; PostgreSQL's watchdog waits for this process before it stops.
  process.on("disconnect", () => void shutdown("supervisor gone"));
  if (process.send && !process.connected) void shutdown("supervisor gone"); // went while starting
}

// Under `npm start` the output goes to pipes the supervisor reads: once it is gone (a `kill -9`),
// writing to them fails (EPIPE), which must not become an uncaught exception (logged, so written
// again) while the gateway records its stop.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

// One charger's bad luck must not take every other charger's socket down: log what escaped a
// handler and keep serving (each handler already answers its charger with an OCPP error).
process.on("unhandledRejection", (error) => log.error("unhandled rejection", { error }));
process.on("uncaughtException", (error) => log.error("uncaught exception", { error }));

// A start that fails (a port taken, the database gone) ends the process with exit code 1, so the
// supervisor sees it (scripts/supervise.ts); the handlers above would otherwise keep it running
// with nothing listening.
await main().catch((error: unknown) => {
  log.error("ocpp gateway failed to start", { error });
  process.exit(1);
});
