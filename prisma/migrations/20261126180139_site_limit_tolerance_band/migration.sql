-- AlterTable
ALTER TABLE "site_power_limits" ADD COLUMN     "band_min_deci_a" INTEGER NOT NULL DEFAULT 10,
ADD COLUMN     "band_percent" INTEGER NOT NULL DEFAULT 10;
