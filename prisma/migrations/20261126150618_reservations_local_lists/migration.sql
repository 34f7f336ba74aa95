-- AlterTable
ALTER TABLE "stations" ADD COLUMN     "local_list" JSONB,
ADD COLUMN     "local_list_synced_at" TIMESTAMPTZ(3),
ADD COLUMN     "local_list_version" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "reservations" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "connector_type" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "reserve_operation_id" TEXT,
    "cancel_operation_id" TEXT,
    "transaction_id" INTEGER,
    "accepted_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "reservations_transaction_id_key" ON "reservations"("transaction_id");

-- CreateIndex
CREATE INDEX "reservations_station_id_id_idx" ON "reservations"("station_id", "id");

-- CreateIndex
CREATE INDEX "reservations_status_expires_at_idx" ON "reservations"("status", "expires_at");

-- AddForeignKey
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "stations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
