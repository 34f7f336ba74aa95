-- CreateTable
CREATE TABLE "site_power_limits" (
    "location_id" INTEGER NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "max_power_w" INTEGER NOT NULL,
    "station_ids" INTEGER[],
    "covers_all" BOOLEAN NOT NULL DEFAULT true,
    "voltage_v" INTEGER NOT NULL DEFAULT 230,
    "min_power_w" INTEGER NOT NULL,
    "connector_max_power_w" INTEGER NOT NULL,
    "phases" INTEGER NOT NULL,
    "overrides" JSONB NOT NULL DEFAULT '[]',
    "computed_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "site_power_limits_pkey" PRIMARY KEY ("location_id")
);

-- CreateTable
CREATE TABLE "site_power_allocations" (
    "connector_id" INTEGER NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "location_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "transaction_id" INTEGER NOT NULL,
    "transaction_start" TIMESTAMPTZ(3) NOT NULL,
    "charging_profile_id" INTEGER NOT NULL,
    "min_power_w" INTEGER NOT NULL,
    "max_power_w" INTEGER NOT NULL,
    "phases" INTEGER NOT NULL,
    "allocated_w" INTEGER NOT NULL,
    "allocated_deci_a" INTEGER NOT NULL,
    "sent_w" INTEGER,
    "sent_deci_a" INTEGER,
    "believed_w" INTEGER NOT NULL,
    "confirmed" BOOLEAN NOT NULL DEFAULT false,
    "held_back_w" INTEGER NOT NULL DEFAULT 0,
    "draw_w" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "site_power_allocations_pkey" PRIMARY KEY ("connector_id")
);

-- CreateIndex
CREATE INDEX "site_power_limits_tenant_id_idx" ON "site_power_limits"("tenant_id");

-- CreateIndex
CREATE INDEX "site_power_allocations_location_id_idx" ON "site_power_allocations"("location_id");

-- CreateIndex
CREATE INDEX "site_power_allocations_transaction_id_idx" ON "site_power_allocations"("transaction_id");

-- AddForeignKey
ALTER TABLE "site_power_limits" ADD CONSTRAINT "site_power_limits_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "site_power_allocations" ADD CONSTRAINT "site_power_allocations_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "site_power_limits"("location_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "site_power_allocations" ADD CONSTRAINT "site_power_allocations_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
