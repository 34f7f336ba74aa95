import type { Db } from "../db";
import { log } from "../log";

type Period = "day" | "month";

/**
 * The time-partitioned tables (migration `time_partitions`; server/maintenance/README.md, "Time
 * partitions"). Each is RANGE partitioned on `column`, one partition `<parent>_pYYYYMMDD` (day) or
 * `_pYYYYMM` (month) per period in UTC, plus `<parent>_default` for any row no partition takes.
 * Periods follow the row rates and retention: a day of charger messages (kept 24 h) or
 * meter.sampled events (kept 7 days) is what retention drops at once; meter samples and kept events
 * are never dropped, so a month bounds the partition count (a query without the time key visits
 * every partition). `ahead` periods past the current one exist at all times while the job runs
 * hourly.
 */
export const PARTITIONED_TABLES = [
  { parent: "events_meter_sampled", column: "created_at", period: "day", ahead: 3 },
  { parent: "events_kept", column: "created_at", period: "month", ahead: 2 },
  { parent: "charger_messages", column: "created_at", period: "day", ahead: 3 },
  { parent: "meter_samples", column: "sampled_at", period: "month", ahead: 2 },
] as const satisfies readonly { parent: string; column: string; period: Period; ahead: number }[];

export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];
export type PartitionedParent = PartitionedTable["parent"];

/** A waiting DDL lock queues every later reader and writer of the table behind it: give up soon. */
const LOCK_TIMEOUT = "2s";

function periodStart(at: Date, period: Period): Date {
  return period === "day"
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

function nextPeriod(start: Date, period: Period): Date {
  return period === "day"
    ? new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + 1))
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

export function partitionName(table: PartitionedTable, start: Date): string {
  const day = start.toISOString().slice(0, 10).replaceAll("-", "");
  return `${table.parent}_p${table.period === "day" ? day : day.slice(0, 6)}`;
}

/** The range a partition name stands for, or null for a name not of the form this file makes. */
export function partitionRange(table: PartitionedTable, name: string) {
  const match = /^_p(\d{4})(\d{2})(\d{2})?$/.exec(name.slice(table.parent.length));
  if (!name.startsWith(table.parent) || !match) return null;
  if ((match[3] === undefined) !== (table.period === "month")) return null;
  const start = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3] ?? 1)));
  return { start, end: nextPeriod(start, table.period) };
}

async function partitionsOf(db: Db, parent: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = ${parent}::regclass`;
  return rows.map((r) => r.name);
}

/** Tables named as this file names partitions but attached to nothing: a drop cut short. */
async function detachedOf(db: Db, parent: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
    WHERE c.relkind = 'r' AND NOT c.relispartition AND starts_with(c.relname, ${`${parent}_p`})`;
  return rows.map((r) => r.name);
}

/**
 * Creates the partitions of the current period and the next `ahead` ones where missing, so rows
 * find their partition before they arrive. A new partition is built beside the table and then
 * ATTACHed, which locks the parent SHARE UPDATE EXCLUSIVE (inserts and reads go on), where
 * CREATE TABLE … PARTITION OF would lock it ACCESS EXCLUSIVE. Rows of the range already in the
 * default partition (the job did not run in time, or a charger's clock ran ahead) move into it
 * in the same transaction, since ATTACH refuses a range the default partition holds rows of.
 * Idempotent: safe from several processes (a lost race fails that slot; the next one sees it).
 */
export async function ensurePartitions({ db, now = new Date() }: { db: Db; now?: Date }) {
  const created: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const existing = new Set(await partitionsOf(db, table.parent));
    let start = periodStart(now, table.period);
    for (let i = 0; i <= table.ahead; i++, start = nextPeriod(start, table.period)) {
      const name = partitionName(table, start);
      if (existing.has(name)) continue;
      await attachPartition(db, table, name, start, nextPeriod(start, table.period));
      created.push(name);
    }
  }
  return created;
}

async function attachPartition(
  db: Db,
  table: PartitionedTable,
  name: string,
  start: Date,
  end: Date,
) {
  // Identifiers come from PARTITIONED_TABLES and a date: nothing outside this file reaches them.
  const [from, to] = [start.toISOString(), end.toISOString()];
  await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await tx.$executeRawUnsafe(
      `CREATE TABLE "${name}" (LIKE "${table.parent}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
    );
    await tx.$executeRawUnsafe(
      `WITH moved AS (DELETE FROM "${table.parent}_default" WHERE "${table.column}" >= '${from}' AND "${table.column}" < '${to}' RETURNING *)
       INSERT INTO "${name}" SELECT * FROM moved`,
    );
    await tx.$executeRawUnsafe(
      `ALTER TABLE "${table.parent}" ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`,
    );
  });
}

/**
 * Drops the partitions whose whole range is older than its table's retention (`keepMs`, for the
 * tables that have one; the others keep every partition). A partition only
 * partly past it stays whole (its rows are kept up to one period longer than promised: retention
 * is a floor). A partition is first DETACHed, which locks the parent ACCESS EXCLUSIVE for a
 * catalog change only (about 10 ms, whatever its size), then DROPped alone, so the files are
 * unlinked while the parent is free (a DROP of an attached partition holds the parent's lock
 * through that, 0.1 to 0.6 s for 1 M rows here). DETACH … CONCURRENTLY would take a weaker lock
 * but PostgreSQL refuses it on a table with a default partition, and in a transaction. A detach
 * that cannot get its lock within LOCK_TIMEOUT (a long query on the table) is left to the next
 * sweep; a table detached but not dropped (a crash between) is dropped by the next one.
 */
export async function dropExpiredPartitions({
  db,
  now = new Date(),
  keepMs,
}: {
  db: Db;
  now?: Date;
  keepMs: Partial<Record<PartitionedParent, number>>;
}) {
  const dropped: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const keep = keepMs[table.parent];
    if (keep === undefined) continue;
    const cutoff = now.getTime() - keep;
    const expired = (name: string) => {
      const range = partitionRange(table, name);
      return range !== null && range.end.getTime() <= cutoff;
    };
    const attached = (await partitionsOf(db, table.parent)).filter(expired);
    const detached = (await detachedOf(db, table.parent)).filter(expired);
    for (const name of [...attached, ...detached]) {
      try {
        if (attached.includes(name)) {
          await db.$transaction(async (tx) => {
            await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
            await tx.$executeRawUnsafe(`ALTER TABLE "${table.parent}" DETACH PARTITION "${name}"`);
          });
        }
        await db.$executeRawUnsafe(`DROP TABLE IF EXISTS "${name}"`);
        dropped.push(name);
      } catch (error) {
        log.warn("partition drop deferred", { partition: name, error });
      }
    }
  }
  return dropped;
}
