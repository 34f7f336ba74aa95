import { z } from "zod";
import type { Scope } from "../access/scopes";
import type { DbTx } from "../db";
import { kwhFromWh } from "../charging/kwh-from-wh";
import { connectionUrl } from "../stations/present-station";

/**
 * A project at a glance (the console's landing page, `GET /v1/tenants/{tenant_id}/overview`). Every
 * figure is aggregated in SQL by an index (`prisma/schema.prisma`: transactions by tenant and start
 * and by tenant and end, bills by tenant and finalization, open faults by tenant, webhook
 * deliveries by tenant and status), so the answer stays small and quick however many stations and
 * transactions the project holds (bench/console-overview.ts).
 */

const bucket = z.object({
  /** the bucket's start, ISO 8601 in UTC */
  start: z.string(),
  energy_wh: z.number().int(),
  energy_kwh: z.string(),
  /** final bills' totals, US cents; null without `billing:read` */
  revenue_minor: z.number().int().nullable(),
});

export const overviewSchema = z.object({
  tenant_id: z.number().int(),
  generated_at: z.string(),
  time_zone: z
    .string()
    .describe("the zone days and hours are cut in (`time_zone` query, default UTC)"),
  /** the event log's last sequence: a reader polls `listEvents` from here and reads again on news */
  event_cursor: z.number().int(),
  stations: z.object({
    total: z.number().int(),
    online: z.number().int(),
    offline: z.number().int(),
    charging: z.number().int(),
    faulted: z.number().int(),
  }),
  setup: z.object({
    locations: z.number().int(),
    /** the first station registered: the one the first-run checklist connects */
    first_station: z
      .object({
        id: z.number().int(),
        name: z.string(),
        connection_url: z.string(),
        has_password: z.boolean(),
      })
      .nullable(),
    /** whether any station of the project has sent a BootNotification yet */
    first_boot_at: z.string().nullable(),
  }),
  /** energy (started transactions) and revenue (final bills) per hour today and per day for 30 days; null without `billing:read` */
  usage: z
    .object({
      today: z.array(bucket),
      days: z.array(bucket),
      totals: z.object({
        today: bucket.omit({ start: true }),
        last_7_days: bucket.omit({ start: true }),
        last_30_days: bucket.omit({ start: true }),
      }),
    })
    .nullable(),
  alerts: z.array(
    z.object({
      kind: z.enum(["fault", "operation", "webhook_delivery"]),
      id: z.string(),
      station_id: z.number().int().nullable(),
      station_name: z.string().nullable(),
      webhook_id: z.string().nullable(),
      title: z.string(),
      detail: z.string(),
      at: z.string(),
    }),
  ),
  /** transactions still running with their latest meter sample's power; null without `billing:read` */
  active_transactions: z
    .array(
      z.object({
        id: z.number().int(),
        station_id: z.number().int(),
        station_name: z.string(),
        connector_number: z.number().int().nullable(),
        started_at: z.string().nullable(),
        energy_kwh: z.string(),
        power_kw: z.string().nullable(),
        sampled_at: z.string().nullable(),
      }),
    )
    .nullable(),
});

export type Overview = z.infer<typeof overviewSchema>;

/** An IANA zone PostgreSQL and Intl both know, or null. */
export function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

type Bucket = {
  start: Date;
  energy_wh: bigint | number | null;
  revenue_minor: bigint | number | null;
};

function presentBucket(b: Omit<Bucket, "start">, billing: boolean) {
  const wh = Number(b.energy_wh ?? 0);
  return {
    energy_wh: wh,
    energy_kwh: kwhFromWh(wh),
    revenue_minor: billing ? Number(b.revenue_minor ?? 0) : null,
  };
}

export async function projectOverview({
  tenantId,
  scopes,
  timeZone,
  db,
  now = new Date(),
}: {
  tenantId: number;
  scopes: ReadonlySet<Scope>;
  timeZone: string;
  db: DbTx;
  now?: Date;
}): Promise<Overview> {
  const billing = scopes.has("billing:read");
  const webhooks = scopes.has("webhooks:read");

  const [stations] = await db.$queryRaw<
    { total: number; online: number; charging: number; faulted: number }[]
  >`
    SELECT count(*)::int AS total,
           count(*) FILTER (WHERE s.gateway_id IS NOT NULL)::int AS online,
           count(*) FILTER (WHERE EXISTS (
             SELECT 1 FROM connectors c WHERE c.station_id = s.id AND c.status = 'Charging'))::int AS charging,
           count(*) FILTER (WHERE EXISTS (
             SELECT 1 FROM connectors c WHERE c.station_id = s.id AND c.status = 'Faulted')
             OR EXISTS (SELECT 1 FROM faults f WHERE f.station_id = s.id AND f.cleared_at IS NULL))::int AS faulted
      FROM stations s WHERE s.tenant_id = ${tenantId}`;

  const [setup] = await db.$queryRaw<
    { locations: number; first_boot_at: Date | null; cursor: number | null }[]
  >`
    SELECT (SELECT count(*)::int FROM locations WHERE tenant_id = ${tenantId}) AS locations,
           (SELECT min(booted_at) FROM stations WHERE tenant_id = ${tenantId}) AS first_boot_at,
           (SELECT last_sequence FROM tenant_event_counters WHERE tenant_id = ${tenantId}) AS cursor`;
  const first = await db.station.findFirst({
    where: { tenantId },
    orderBy: { id: "asc" },
    select: { id: true, name: true, passwordHash: true },
  });

  let usage: Overview["usage"] = null;
  let active: Overview["active_transactions"] = null;
  if (billing) {
    // Hours of today and days of the last 30, cut in the zone asked for; energy by the start of
    // the transaction, revenue by the finalization of the bill.
    const hours = await db.$queryRaw<Bucket[]>`
      WITH zone AS (SELECT date_trunc('day', ${now}::timestamptz AT TIME ZONE ${timeZone}) AS day),
      slots AS (
        SELECT generate_series(zone.day, zone.day + interval '23 hours', interval '1 hour') AS local FROM zone
      ),
      e AS (
        SELECT date_trunc('hour', t.started_at AT TIME ZONE ${timeZone}) AS local, sum(t.energy_wh) AS wh
          FROM transactions t, zone
         WHERE t.tenant_id = ${tenantId}
           AND t.started_at >= zone.day AT TIME ZONE ${timeZone}
           AND t.started_at < (zone.day + interval '1 day') AT TIME ZONE ${timeZone}
         GROUP BY 1
      ),
      r AS (
        SELECT date_trunc('hour', b.finalized_at AT TIME ZONE ${timeZone}) AS local, sum(b.total_minor) AS minor
          FROM bills b, zone
         WHERE b.tenant_id = ${tenantId} AND b.status = 'final'
           AND b.finalized_at >= zone.day AT TIME ZONE ${timeZone}
           AND b.finalized_at < (zone.day + interval '1 day') AT TIME ZONE ${timeZone}
         GROUP BY 1
      )
      SELECT slots.local AT TIME ZONE ${timeZone} AS start, e.wh AS energy_wh, r.minor AS revenue_minor
        FROM slots LEFT JOIN e USING (local) LEFT JOIN r USING (local)
       ORDER BY slots.local`;
    const days = await db.$queryRaw<Bucket[]>`
      WITH zone AS (SELECT date_trunc('day', ${now}::timestamptz AT TIME ZONE ${timeZone}) AS day),
      slots AS (
        SELECT generate_series(zone.day - interval '29 days', zone.day, interval '1 day') AS local FROM zone
      ),
      e AS (
        SELECT date_trunc('day', t.started_at AT TIME ZONE ${timeZone}) AS local, sum(t.energy_wh) AS wh
          FROM transactions t, zone
         WHERE t.tenant_id = ${tenantId}
           AND t.started_at >= (zone.day - interval '29 days') AT TIME ZONE ${timeZone}
         GROUP BY 1
      ),
      r AS (
        SELECT date_trunc('day', b.finalized_at AT TIME ZONE ${timeZone}) AS local, sum(b.total_minor) AS minor
          FROM bills b, zone
         WHERE b.tenant_id = ${tenantId} AND b.status = 'final'
           AND b.finalized_at >= (zone.day - interval '29 days') AT TIME ZONE ${timeZone}
         GROUP BY 1
      )
      SELECT slots.local AT TIME ZONE ${timeZone} AS start, e.wh AS energy_wh, r.minor AS revenue_minor
        FROM slots LEFT JOIN e USING (local) LEFT JOIN r USING (local)
       ORDER BY slots.local`;
    const sum = (rows: Bucket[]) =>
      presentBucket(
        {
          energy_wh: rows.reduce((n, b) => n + Number(b.energy_wh ?? 0), 0),
          revenue_minor: rows.reduce((n, b) => n + Number(b.revenue_minor ?? 0), 0),
        },
        true,
      );
    usage = {
      today: hours.map((b) => ({ start: b.start.toISOString(), ...presentBucket(b, true) })),
      days: days.map((b) => ({ start: b.start.toISOString(), ...presentBucket(b, true) })),
      totals: { today: sum(hours), last_7_days: sum(days.slice(-7)), last_30_days: sum(days) },
    };

    const running = await db.$queryRaw<
      {
        id: number;
        station_id: number;
        station_name: string;
        connector_number: number | null;
        started_at: Date | null;
        energy_wh: number;
        power_kw: string | null;
        sampled_at: Date | null;
      }[]
    >`
      SELECT t.id, t.station_id, s.name AS station_name, c.connector_number, t.started_at,
             t.energy_wh, m.power_kw, m.sampled_at
        FROM transactions t
        JOIN stations s ON s.id = t.station_id
        LEFT JOIN connectors c ON c.id = t.connector_id
        LEFT JOIN LATERAL (
          SELECT power_kw, sampled_at FROM meter_samples ms
           WHERE ms.transaction_id = t.id ORDER BY ms.sampled_at DESC LIMIT 1
        ) m ON true
       WHERE t.tenant_id = ${tenantId} AND t.ended_at IS NULL
       ORDER BY t.id DESC
       LIMIT 50`;
    active = running.map((t) => ({
      id: t.id,
      station_id: t.station_id,
      station_name: t.station_name,
      connector_number: t.connector_number,
      started_at: t.started_at?.toISOString() ?? null,
      energy_kwh: kwhFromWh(t.energy_wh),
      power_kw: t.power_kw,
      sampled_at: t.sampled_at?.toISOString() ?? null,
    }));
  }

  const alerts: Overview["alerts"] = [];
  const faults = await db.$queryRaw<
    {
      id: number;
      station_id: number;
      station_name: string;
      error_code: string | null;
      info: string | null;
      evse_number: number | null;
      opened_at: Date;
    }[]
  >`
    SELECT f.id, f.station_id, s.name AS station_name, f.error_code, f.info, f.evse_number, f.opened_at
      FROM faults f JOIN stations s ON s.id = f.station_id
     WHERE f.tenant_id = ${tenantId} AND f.cleared_at IS NULL
     ORDER BY f.id DESC LIMIT 20`;
  for (const f of faults)
    alerts.push({
      kind: "fault",
      id: String(f.id),
      station_id: f.station_id,
      station_name: f.station_name,
      webhook_id: null,
      title: `${f.station_name} faulted`,
      detail: [
        f.evse_number ? `EVSE ${f.evse_number}` : "whole station",
        f.error_code ?? "no error code",
        f.info,
      ]
        .filter(Boolean)
        .join(" · "),
      at: f.opened_at.toISOString(),
    });
  const operations = await db.$queryRaw<
    {
      id: string;
      station_id: number | null;
      station_name: string | null;
      action: string;
      status: string;
      created_at: Date;
      result: unknown;
    }[]
  >`
    SELECT o.id, o.station_id, s.name AS station_name, o.action, o.status, o.created_at, o.result
      FROM operations o LEFT JOIN stations s ON s.id = o.station_id
     WHERE o.tenant_id = ${tenantId} AND o.created_at >= ${now}::timestamptz - interval '24 hours'
       AND o.status IN ('rejected', 'unknown')
     ORDER BY o.created_at DESC LIMIT 20`;
  for (const o of operations) {
    const reason =
      o.result && typeof o.result === "object" && "reason" in o.result
        ? String(o.result.reason)
        : null;
    alerts.push({
      kind: "operation",
      id: o.id,
      station_id: o.station_id,
      station_name: o.station_name,
      webhook_id: null,
      title: `${o.action} ${o.status}${o.station_name ? ` on ${o.station_name}` : ""}`,
      detail: reason ?? (o.status === "unknown" ? "the charger's answer is unknown" : "refused"),
      at: o.created_at.toISOString(),
    });
  }
  if (webhooks) {
    const deliveries = await db.$queryRaw<
      {
        id: string;
        endpoint_id: string;
        url: string;
        status: string;
        attempts: number;
        last_error: string | null;
        last_status: number | null;
        created_at: Date;
      }[]
    >`
      SELECT d.id, d.endpoint_id, e.url, d.status, d.attempts, d.last_error, d.last_status, d.created_at
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.tenant_id = ${tenantId}
         AND d.created_at >= ${now}::timestamptz - interval '7 days'
         AND (d.status = 'failed' OR (d.status = 'queued' AND d.attempts > 0))
       ORDER BY d.created_at DESC LIMIT 20`;
    for (const d of deliveries)
      alerts.push({
        kind: "webhook_delivery",
        id: d.id,
        station_id: null,
        station_name: null,
        webhook_id: d.endpoint_id,
        title: `Webhook delivery to ${d.url} ${d.status === "failed" ? "failed" : "is retrying"}`,
        detail: `${d.attempts} attempt${d.attempts === 1 ? "" : "s"}${
          d.last_status ? `, last answer HTTP ${d.last_status}` : ""
        }${d.last_error ? `: ${d.last_error}` : ""}`,
        at: d.created_at.toISOString(),
      });
  }
  alerts.sort((a, b) => b.at.localeCompare(a.at));

  return {
    tenant_id: tenantId,
    generated_at: now.toISOString(),
    time_zone: timeZone,
    event_cursor: setup?.cursor ?? 0,
    stations: {
      total: stations?.total ?? 0,
      online: stations?.online ?? 0,
      offline: (stations?.total ?? 0) - (stations?.online ?? 0),
      charging: stations?.charging ?? 0,
      faulted: stations?.faulted ?? 0,
    },
    setup: {
      locations: setup?.locations ?? 0,
      first_station: first
        ? {
            id: first.id,
            name: first.name,
            connection_url: connectionUrl(first.name),
            has_password: first.passwordHash !== null,
          }
        : null,
      first_boot_at: setup?.first_boot_at?.toISOString() ?? null,
    },
    usage,
    alerts,
    active_transactions: active,
  };
}
