-- AlterTable
ALTER TABLE "stations" ADD COLUMN     "charging_profiles_report" JSONB;
