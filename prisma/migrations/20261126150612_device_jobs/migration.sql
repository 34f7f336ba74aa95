-- CreateTable
CREATE TABLE "device_jobs" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "batch_id" TEXT,
    "operation_id" TEXT NOT NULL,
    "request_id" INTEGER NOT NULL,
    "request" JSONB NOT NULL,
    "state" TEXT NOT NULL,
    "last_status" TEXT,
    "last_status_at" TIMESTAMPTZ(3),
    "history" JSONB NOT NULL DEFAULT '[]',
    "upload_token_hash" TEXT,
    "file_name" TEXT,
    "file_size" INTEGER,
    "file_sha256" TEXT,
    "file" BYTEA,
    "uploaded_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "device_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "device_jobs_upload_token_hash_key" ON "device_jobs"("upload_token_hash");

-- CreateIndex
CREATE INDEX "device_jobs_station_id_kind_created_at_idx" ON "device_jobs"("station_id", "kind", "created_at");

-- CreateIndex
CREATE INDEX "device_jobs_batch_id_idx" ON "device_jobs"("batch_id");

-- CreateIndex
CREATE INDEX "device_jobs_tenant_id_created_at_idx" ON "device_jobs"("tenant_id", "created_at");

-- AddForeignKey
ALTER TABLE "device_jobs" ADD CONSTRAINT "device_jobs_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "stations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
