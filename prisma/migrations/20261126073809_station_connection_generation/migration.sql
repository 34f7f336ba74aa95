-- AlterTable
ALTER TABLE "stations" ADD COLUMN     "connection_generation" INTEGER NOT NULL DEFAULT 0;
