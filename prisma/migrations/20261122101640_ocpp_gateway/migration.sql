-- AlterTable
ALTER TABLE "connectors" ADD COLUMN     "error_code" TEXT,
ADD COLUMN     "ocpp_status" TEXT,
ADD COLUMN     "status" TEXT,
ADD COLUMN     "status_updated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "operations" ADD COLUMN     "claimed_at" TIMESTAMPTZ(3),
ADD COLUMN     "claimed_by" TEXT,
ADD COLUMN     "ocpp_call" JSONB;

-- AlterTable
ALTER TABLE "stations" ADD COLUMN     "boot_model" TEXT,
ADD COLUMN     "boot_vendor" TEXT,
ADD COLUMN     "booted_at" TIMESTAMPTZ(3),
ADD COLUMN     "connected_at" TIMESTAMPTZ(3),
ADD COLUMN     "event_sequence" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "firmware_version" TEXT,
ADD COLUMN     "gateway_id" TEXT,
ADD COLUMN     "last_seen_at" TIMESTAMPTZ(3),
ADD COLUMN     "protocol" TEXT;

-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "authorization_mode" TEXT NOT NULL DEFAULT 'accept_all';

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "energy_wh" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "id_token" TEXT,
ADD COLUMN     "last_sample_logged_at" TIMESTAMPTZ(3),
ADD COLUMN     "meter_start_wh" INTEGER,
ADD COLUMN     "meter_stop_wh" INTEGER,
ADD COLUMN     "stop_reason" TEXT,
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "meter_samples" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "transaction_id" INTEGER NOT NULL,
    "sampled_at" TIMESTAMPTZ(3) NOT NULL,
    "energy_wh" INTEGER,
    "power_kw" TEXT,
    "current_a" TEXT,
    "voltage_v" TEXT,
    "soc_percent" TEXT,
    "context" TEXT,

    CONSTRAINT "meter_samples_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "faults" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "connector_id" INTEGER,
    "evse_number" INTEGER,
    "error_code" TEXT,
    "info" TEXT,
    "vendor_id" TEXT,
    "vendor_error_code" TEXT,
    "ocpp_status" TEXT,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "cleared_at" TIMESTAMPTZ(3),

    CONSTRAINT "faults_pkey" PRIMARY KEY ("id")
);

-- CreateTable
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

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_event_counters" (
    "tenant_id" INTEGER NOT NULL,
    "last_sequence" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "tenant_event_counters_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "gateways" (
    "id" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stopped_at" TIMESTAMPTZ(3),

    CONSTRAINT "gateways_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "charger_messages" (
    "station_id" INTEGER NOT NULL,
    "message_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charger_messages_pkey" PRIMARY KEY ("station_id","message_id")
);

-- CreateTable
CREATE TABLE "authorization_tokens" (
    "tenant_id" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "authorization_tokens_pkey" PRIMARY KEY ("tenant_id","token")
);

-- CreateIndex
CREATE INDEX "meter_samples_transaction_id_sampled_at_idx" ON "meter_samples"("transaction_id", "sampled_at");

-- CreateIndex
CREATE INDEX "faults_station_id_id_idx" ON "faults"("station_id", "id");

-- CreateIndex
CREATE INDEX "faults_cleared_at_idx" ON "faults"("cleared_at");

-- CreateIndex
CREATE INDEX "events_tenant_id_type_sequence_idx" ON "events"("tenant_id", "type", "sequence");

-- CreateIndex
CREATE INDEX "events_tenant_id_station_id_sequence_idx" ON "events"("tenant_id", "station_id", "sequence");

-- CreateIndex
CREATE INDEX "events_type_created_at_idx" ON "events"("type", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "events_tenant_id_sequence_key" ON "events"("tenant_id", "sequence");

-- CreateIndex
CREATE INDEX "charger_messages_created_at_idx" ON "charger_messages"("created_at");

-- CreateIndex
CREATE INDEX "operations_status_station_id_idx" ON "operations"("status", "station_id");

-- AddForeignKey
ALTER TABLE "meter_samples" ADD CONSTRAINT "meter_samples_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "faults" ADD CONSTRAINT "faults_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "stations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
