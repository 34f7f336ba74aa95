-- AlterTable
ALTER TABLE "idempotency_records" ALTER COLUMN "response_body" SET DATA TYPE JSON;
