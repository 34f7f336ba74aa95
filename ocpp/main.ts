/**
 * The OCPP gateway process: charger websockets at /ocpp/<station name>, a health probe at /health,
 * and (as they land) the background workers. Run N copies against one database.
 */
import { closeDb, db } from "../server/db";
import { applyMigrations } from "../server/db/migrate";
import { envOrExit } from "../server/env";
import { log } from "../server/log";
import { createGateway } from "./gateway";
import { createOcppServer } from "./http-server";
import { startMaintenance } from "./maintenance";
import { startWebhookWorker } from "./webhook-worker";

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

  const gateway = await createGateway({ db: db(), databaseUrl: config.databaseUrl });
  const webhooks = await startWebhookWorker({
    db: db(),
    databaseUrl: config.databaseUrl,
    allowPrivate: config.webhookAllowPrivateDestinations,
  });
  const maintenance = startMaintenance({ db: db() });
  const tls = config.ocppTls ?? undefined;
  const server = createOcppServer({ gateway, db: db(), ...(tls ? { tls } : {}) });
  await new Promise<void>((resolve) => server.listen(config.ocppPort, resolve));
  log.info("ocpp gateway listening", {
    port: config.ocppPort,
    tls: Boolean(tls),
    gateway_id: gateway.id,
  });

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    log.info("ocpp gateway stopping");
    server.close();
    maintenance.stop();
    await webhooks.stop();
    await gateway.close();
    await closeDb();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
}

// One charger's bad luck must not take every other charger's socket down: log what escaped a
// handler and keep serving (each handler already answers its charger with an OCPP error).
process.on("unhandledRejection", (error) => log.error("unhandled rejection", { error }));
process.on("uncaughtException", (error) => log.error("uncaught exception", { error }));

await main();
