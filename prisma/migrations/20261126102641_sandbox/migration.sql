-- AlterTable
ALTER TABLE "teams" ADD COLUMN     "brand_accent" TEXT,
ADD COLUMN     "brand_logo_url" TEXT,
ADD COLUMN     "brand_name" TEXT;

-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'project';

-- CreateTable
CREATE TABLE "sandbox_sessions" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "team_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "tariff_id" INTEGER NOT NULL,
    "tariff_version" INTEGER NOT NULL,
    "bill_id" TEXT NOT NULL,
    "payment_id" TEXT,
    "transaction_id" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'starting',
    "open_connector_id" INTEGER,
    "target_wh" INTEGER NOT NULL DEFAULT 0,
    "elapsed_seconds" INTEGER NOT NULL DEFAULT 0,
    "start_operation_id" TEXT,
    "stop_operation_id" TEXT,
    "last_error" JSONB,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "stopped_at" TIMESTAMPTZ(3),
    "settled_at" TIMESTAMPTZ(3),
    "refunded_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sandbox_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sandbox_advances" (
    "session_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "energy_wh" INTEGER NOT NULL,
    "elapsed_seconds" INTEGER NOT NULL,
    "soc_percent" INTEGER,
    "register_wh" BIGINT NOT NULL,
    "sampled_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "applied_at" TIMESTAMPTZ(3),

    CONSTRAINT "sandbox_advances_pkey" PRIMARY KEY ("session_id","seq")
);

-- CreateTable
CREATE TABLE "sandbox_chargers" (
    "station_id" INTEGER NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "password_sealed" TEXT NOT NULL,
    "register_wh" BIGINT NOT NULL DEFAULT 0,
    "clock_offset_seconds" INTEGER NOT NULL DEFAULT 0,
    "nominal_power_w" INTEGER NOT NULL,
    "host_gateway_id" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "idle_since" TIMESTAMPTZ(3),

    CONSTRAINT "sandbox_chargers_pkey" PRIMARY KEY ("station_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_sessions_bill_id_key" ON "sandbox_sessions"("bill_id");

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_sessions_payment_id_key" ON "sandbox_sessions"("payment_id");

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_sessions_transaction_id_key" ON "sandbox_sessions"("transaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_sessions_open_connector_id_key" ON "sandbox_sessions"("open_connector_id");

-- CreateIndex
CREATE INDEX "sandbox_sessions_tenant_id_id_idx" ON "sandbox_sessions"("tenant_id", "id");

-- CreateIndex
CREATE INDEX "sandbox_sessions_team_id_created_at_idx" ON "sandbox_sessions"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "sandbox_chargers_host_gateway_id_idx" ON "sandbox_chargers"("host_gateway_id");

-- CreateIndex
CREATE UNIQUE INDEX "tenants_one_sandbox_per_team" ON "tenants"("team_id") WHERE (kind = 'sandbox'::text);

-- AddForeignKey
ALTER TABLE "sandbox_sessions" ADD CONSTRAINT "sandbox_sessions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sandbox_advances" ADD CONSTRAINT "sandbox_advances_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sandbox_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Closed sets the code relies on
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_kind_check" CHECK (kind IN ('project', 'sandbox'));
ALTER TABLE "sandbox_sessions" ADD CONSTRAINT "sandbox_sessions_status_check"
  CHECK (status IN ('starting', 'charging', 'stopping', 'settled', 'refunded', 'failed'));
ALTER TABLE "sandbox_sessions" ADD CONSTRAINT "sandbox_sessions_values_check"
  CHECK (target_wh >= 0 AND elapsed_seconds >= 0);
ALTER TABLE "sandbox_advances" ADD CONSTRAINT "sandbox_advances_values_check"
  CHECK (status IN ('pending', 'applied') AND energy_wh > 0 AND elapsed_seconds >= 0
    AND (soc_percent IS NULL OR soc_percent BETWEEN 0 AND 100));
