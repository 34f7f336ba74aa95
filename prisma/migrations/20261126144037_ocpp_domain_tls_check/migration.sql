-- AlterTable
ALTER TABLE "ocpp_domains" ADD COLUMN     "tls_checked_at" TIMESTAMPTZ(3),
ADD COLUMN     "tls_error" TEXT,
ADD COLUMN     "tls_ready_at" TIMESTAMPTZ(3),
ADD COLUMN     "tls_serial" TEXT;
