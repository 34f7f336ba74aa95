-- AlterTable
ALTER TABLE "meter_samples" ALTER COLUMN "energy_wh" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "transactions" ALTER COLUMN "meter_start_wh" SET DATA TYPE BIGINT,
ALTER COLUMN "meter_stop_wh" SET DATA TYPE BIGINT;
