-- AlterTable
ALTER TABLE "operations" ADD COLUMN     "seq" BIGSERIAL NOT NULL;
