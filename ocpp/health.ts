import type { Db } from "../server/db";
import { joinGroup, type Channel, type Member } from "../server/process-group";
import type { Gateway } from "./gateway";

/** What one gateway process tells about itself. */
export type ProcessHealth = {
  pid: number;
  gateway_id: string;
  connections: number;
  memory_rss_bytes: number;
  uptime_seconds: number;
};

export type HealthBody = {
  /** `ok` when the database answers and, under a group, every process of it answered */
  status: "ok" | "degraded";
  database: "ok" | "unreachable";
  /** this process (the one the probe reached) */
  gateway_id: string;
  connections: number;
  memory_rss_bytes: number;
  /** with several processes (OCPP_PROCESSES above 1): this process's name */
  process?: string;
  /**
   * with several processes: each process of the group, in order, `up: false` for one that did not
   * answer (down, restarting, or slower than half a second); `null` when `npm start` did not answer
   */
  processes?: (({ name: string; up: true } & ProcessHealth) | { name: string; up: false })[] | null;
};

export const ownHealth = (gateway: Gateway): ProcessHealth => ({
  pid: process.pid,
  gateway_id: gateway.id,
  connections: gateway.connectionCount(),
  memory_rss_bytes: process.memoryUsage().rss,
  uptime_seconds: Math.round(process.uptime()),
});

/**
 * Under `npm start` with several gateway processes on one port, a probe of `/health` reaches
 * whichever process the kernel picks; so that the one address tells about all of them, the process
 * the probe reached asks the others through `npm start` (server/process-group.ts), as a scrape of
 * `/metrics` does. Returns how to ask.
 */
export function joinHealthGroup(gateway: Gateway, channel: Channel = process) {
  return joinGroup("health", () => Promise.resolve(ownHealth(gateway)), channel);
}

/**
 * The gateway's `/health`: 200 when this process can serve chargers (its database answers), 503
 * when it cannot. The body's `status` is `degraded` also when a process of the group is down,
 * restarting or not answering (HTTP 200 still: the processes that listen take the chargers, and a
 * process that is down is not in the port's group, so no charger is sent to it).
 */
export async function healthAnswer(
  gateway: Gateway,
  db: Db,
  group?: { name: string; gather: () => Promise<Member<ProcessHealth>[] | null> },
): Promise<{ status: 200 | 503; body: HealthBody }> {
  const [database, members] = await Promise.all([
    db.$queryRaw`SELECT 1`.then(
      () => "ok" as const,
      () => "unreachable" as const,
    ),
    group ? group.gather() : undefined,
  ]);
  const own = ownHealth(gateway);
  const processes =
    members === undefined
      ? undefined
      : (members?.map(({ name, value }) =>
          value ? { name, up: true as const, ...value } : { name, up: false as const },
        ) ?? null);
  const allUp = processes === undefined || (processes !== null && processes.every((p) => p.up));
  return {
    status: database === "ok" ? 200 : 503,
    body: {
      status: database === "ok" && allUp ? "ok" : "degraded",
      database,
      gateway_id: own.gateway_id,
      connections: own.connections,
      memory_rss_bytes: own.memory_rss_bytes,
      ...(group ? { process: group.name, processes } : {}),
    },
  };
}
