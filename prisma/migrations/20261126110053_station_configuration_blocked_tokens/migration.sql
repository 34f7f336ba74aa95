-- AlterTable
ALTER TABLE "authorization_tokens" ADD COLUMN     "blocked_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "stations" ADD COLUMN     "configuration" JSONB,
ADD COLUMN     "configuration_read_at" TIMESTAMPTZ(3);
