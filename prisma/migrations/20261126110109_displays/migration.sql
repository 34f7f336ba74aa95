-- CreateTable
CREATE TABLE "displays" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "evse_id" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "tariff_id" INTEGER,
    "image_sha256" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "shown" BOOLEAN NOT NULL DEFAULT false,
    "last_error" JSONB,
    "operation_id" TEXT,
    "pushed_boot_at" TIMESTAMPTZ(3),
    "pushed_generation" INTEGER,
    "pushed_tariff_version" INTEGER,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "displays_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "display_images" (
    "sha256" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "png" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "display_images_pkey" PRIMARY KEY ("sha256")
);

-- CreateIndex
CREATE UNIQUE INDEX "displays_evse_id_key" ON "displays"("evse_id");

-- CreateIndex
CREATE INDEX "displays_station_id_idx" ON "displays"("station_id");

-- CreateIndex
CREATE INDEX "displays_tariff_id_idx" ON "displays"("tariff_id");

-- CreateIndex
CREATE UNIQUE INDEX "display_images_url_key" ON "display_images"("url");

-- AddForeignKey
ALTER TABLE "displays" ADD CONSTRAINT "displays_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "stations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "displays" ADD CONSTRAINT "displays_evse_id_fkey" FOREIGN KEY ("evse_id") REFERENCES "evses"("id") ON DELETE CASCADE ON UPDATE CASCADE;
