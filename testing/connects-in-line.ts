import pg from "pg";
import type { RPCClient } from "ocpp-rpc";
import { aStationWithPassword } from "./builders";
import { aConnectedCharger } from "./ocpp";

type Protocol = "ocpp1.6" | "ocpp2.0.1" | "ocpp2.1";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Chargers whose connects wait in the gateway's connection recorder's line, their first calls
 * sent meanwhile: the setup of the tests of a first call riding with its connect
 * (ocpp/new-charger-boot.test.ts, ocpp/new-charger-statements.test.ts).
 *
 * The tenant's event counter is held by a transaction of the test's own; two other stations of
 * the tenant (`ahead`, made here) connect first, 150 ms apart, and their connects are the
 * recorder's two batches in flight, waiting for the counter; then `waiting` connect, in order,
 * and `firstCalls` sends their first calls. 300 ms later the counter is released. Returns once
 * the first calls are answered, with every charger (the test closes them).
 */
export async function connectsInLine<T>(
  gateway: { url: string },
  options: {
    tenant: { tenantId: number; key: string };
    password: string;
    waiting: { station: { name: string }; protocol: Protocol }[];
    firstCalls: (chargers: RPCClient[]) => Promise<T>;
  },
): Promise<{
  ahead: { stations: { id: number; name: string }[]; chargers: RPCClient[] };
  chargers: RPCClient[];
  answers: T;
}> {
  const { tenant, password } = options;
  // made before the counter is held: their API calls append events, which would wait for it
  const stations = [
    await aStationWithPassword(tenant, password),
    await aStationWithPassword(tenant, password),
  ];
  const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await blocker.connect();
  let released = false;
  try {
    await blocker.query("BEGIN");
    await blocker.query("SELECT 1 FROM tenant_event_counters WHERE tenant_id = $1 FOR UPDATE", [
      tenant.tenantId,
    ]);
    const ahead: RPCClient[] = [];
    for (const station of stations) {
      ahead.push(await aConnectedCharger(gateway, station, password, "ocpp1.6"));
      await sleep(150);
    }
    const chargers: RPCClient[] = [];
    for (const { station, protocol } of options.waiting)
      chargers.push(await aConnectedCharger(gateway, station, password, protocol));
    const answers = options.firstCalls(chargers);
    // awaited below, once the counter is released; a rejection meanwhile is not unhandled
    void answers.catch(() => {});
    await sleep(300);
    await blocker.query("COMMIT");
    released = true;
    return { ahead: { stations, chargers: ahead }, chargers, answers: await answers };
  } finally {
    if (!released) await blocker.query("ROLLBACK").catch(() => {});
    await blocker.end();
  }
}
