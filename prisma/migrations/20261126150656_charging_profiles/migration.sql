-- CreateTable
CREATE TABLE "charging_profiles" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "charging_profile_id" INTEGER NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'api',
    "evse_number" INTEGER NOT NULL,
    "connector_id" INTEGER,
    "purpose" TEXT NOT NULL,
    "stack_level" INTEGER NOT NULL,
    "profile" JSONB NOT NULL,
    "state" TEXT NOT NULL,
    "charger_status" TEXT,
    "operation_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "charging_profiles_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "charging_profiles_tenant_id_station_id_idx" ON "charging_profiles"("tenant_id", "station_id");

-- CreateIndex
CREATE UNIQUE INDEX "charging_profiles_station_id_charging_profile_id_key" ON "charging_profiles"("station_id", "charging_profile_id");

-- AddForeignKey
ALTER TABLE "charging_profiles" ADD CONSTRAINT "charging_profiles_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "stations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
