-- Time partitioning of the three tables that grow without bound (ARCHITECTURE.md, Data):
-- events (meter.sampled by day, every other type by month), charger_messages by day,
-- meter_samples by month. Each table is rebuilt as a partitioned table and its rows are copied
-- over in this migration's transaction; the old table is dropped. Every leaf parent has a
-- DEFAULT partition, so an insert never fails for lack of a partition; the partitions job
-- (server/maintenance/partitions.ts) keeps the next periods' partitions created ahead.
-- A unique key on a partitioned table must hold its partition keys, so the keys below carry
-- them; the uniquenesses they no longer enforce alone are enforced by locks (see the schema).

-- One partition [from, from + 1 unit) per period, named <parent>_pYYYYMMDD (day) or _pYYYYMM.
CREATE FUNCTION pg_temp.create_range_partitions(parent text, unit text, first timestamptz, last timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  start timestamptz := date_trunc(unit, first AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  stop timestamptz;
BEGIN
  WHILE start <= last LOOP
    stop := (date_trunc(unit, start AT TIME ZONE 'UTC') + ('1 ' || unit)::interval) AT TIME ZONE 'UTC';
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
      parent || '_p' || to_char(start AT TIME ZONE 'UTC', CASE unit WHEN 'day' THEN 'YYYYMMDD' ELSE 'YYYYMM' END),
      parent, start, stop);
    start := stop;
  END LOOP;
END $$;

-- events -------------------------------------------------------------------------------------
ALTER TABLE "events" RENAME TO "events_unpartitioned";
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";
DROP INDEX "events_tenant_id_sequence_key";
DROP INDEX "events_tenant_id_type_sequence_idx";
DROP INDEX "events_tenant_id_station_id_sequence_idx";
DROP INDEX "events_type_created_at_idx";

CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "sequence" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "resource_id" TEXT,
    "station_id" INTEGER,
    "station_sequence" INTEGER,
    "occurred_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id","type","created_at")
) PARTITION BY LIST ("type");
CREATE INDEX "events_tenant_id_sequence_idx" ON "events"("tenant_id", "sequence");
CREATE INDEX "events_tenant_id_type_sequence_idx" ON "events"("tenant_id", "type", "sequence");
CREATE INDEX "events_tenant_id_station_id_sequence_idx" ON "events"("tenant_id", "station_id", "sequence");

-- meter.sampled events are kept 7 days (spec section 8): day partitions, dropped whole.
CREATE TABLE "events_meter_sampled" PARTITION OF "events" FOR VALUES IN ('meter.sampled')
  PARTITION BY RANGE ("created_at");
CREATE TABLE "events_meter_sampled_default" PARTITION OF "events_meter_sampled" DEFAULT;
SELECT pg_temp.create_range_partitions('events_meter_sampled', 'day',
  least(now() - interval '8 days', (SELECT min(created_at) FROM "events_unpartitioned" WHERE type = 'meter.sampled')),
  now() + interval '3 days');
-- Every other event is kept: month partitions, never dropped.
CREATE TABLE "events_kept" PARTITION OF "events" DEFAULT PARTITION BY RANGE ("created_at");
CREATE TABLE "events_kept_default" PARTITION OF "events_kept" DEFAULT;
SELECT pg_temp.create_range_partitions('events_kept', 'month',
  coalesce((SELECT min(created_at) FROM "events_unpartitioned" WHERE type <> 'meter.sampled'), now()),
  now() + interval '2 months');

INSERT INTO "events" SELECT "id", "tenant_id", "sequence", "type", "resource_id", "station_id",
  "station_sequence", "occurred_at", "created_at", "data" FROM "events_unpartitioned";
DROP TABLE "events_unpartitioned";

-- charger_messages ---------------------------------------------------------------------------
ALTER TABLE "charger_messages" RENAME TO "charger_messages_unpartitioned";
ALTER TABLE "charger_messages_unpartitioned" RENAME CONSTRAINT "charger_messages_pkey" TO "charger_messages_unpartitioned_pkey";
DROP INDEX "charger_messages_created_at_idx";

CREATE TABLE "charger_messages" (
    "station_id" INTEGER NOT NULL,
    "message_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charger_messages_pkey" PRIMARY KEY ("station_id","message_id","created_at")
) PARTITION BY RANGE ("created_at");
CREATE TABLE "charger_messages_default" PARTITION OF "charger_messages" DEFAULT;
SELECT pg_temp.create_range_partitions('charger_messages', 'day',
  least(now() - interval '2 days', (SELECT min(created_at) FROM "charger_messages_unpartitioned")),
  now() + interval '3 days');
INSERT INTO "charger_messages" SELECT "station_id", "message_id", "action", "response", "created_at"
  FROM "charger_messages_unpartitioned";
DROP TABLE "charger_messages_unpartitioned";

-- meter_samples ------------------------------------------------------------------------------
-- Keyed by the charger's own timestamp: months reaching two years back; rows a charger's clock
-- put further away stay in the default partition.
ALTER TABLE "meter_samples" RENAME TO "meter_samples_unpartitioned";
ALTER TABLE "meter_samples_unpartitioned" RENAME CONSTRAINT "meter_samples_pkey" TO "meter_samples_unpartitioned_pkey";
ALTER TABLE "meter_samples_unpartitioned" DROP CONSTRAINT "meter_samples_transaction_id_fkey";
DROP INDEX "meter_samples_transaction_id_sampled_at_idx";
ALTER SEQUENCE "meter_samples_id_seq" OWNED BY NONE;

CREATE TABLE "meter_samples" (
    "id" BIGINT NOT NULL DEFAULT nextval('meter_samples_id_seq'),
    "tenant_id" INTEGER NOT NULL,
    "transaction_id" INTEGER NOT NULL,
    "sampled_at" TIMESTAMPTZ(3) NOT NULL,
    "energy_wh" BIGINT,
    "power_kw" TEXT,
    "current_a" TEXT,
    "voltage_v" TEXT,
    "soc_percent" TEXT,
    "context" TEXT,

    CONSTRAINT "meter_samples_pkey" PRIMARY KEY ("id","sampled_at")
) PARTITION BY RANGE ("sampled_at");
ALTER SEQUENCE "meter_samples_id_seq" OWNED BY "meter_samples"."id";
CREATE INDEX "meter_samples_transaction_id_sampled_at_idx" ON "meter_samples"("transaction_id", "sampled_at");
CREATE TABLE "meter_samples_default" PARTITION OF "meter_samples" DEFAULT;
SELECT pg_temp.create_range_partitions('meter_samples', 'month',
  greatest(now() - interval '2 years',
    coalesce((SELECT min(sampled_at) FROM "meter_samples_unpartitioned"), now())),
  now() + interval '2 months');
INSERT INTO "meter_samples" SELECT "id", "tenant_id", "transaction_id", "sampled_at", "energy_wh",
  "power_kw", "current_a", "voltage_v", "soc_percent", "context" FROM "meter_samples_unpartitioned";
DROP TABLE "meter_samples_unpartitioned";
ALTER TABLE "meter_samples" ADD CONSTRAINT "meter_samples_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
