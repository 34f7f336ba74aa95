-- Webhook deliveries still queued become delivery jobs (server/webhooks/deliver-webhook.ts), with
-- the attempts already made counted, so each keeps the rest of its eight.
INSERT INTO "jobs" ("id", "name", "queue", "payload", "attempt", "run_at")
SELECT 'webhooks.deliver:' || "id", 'webhooks.deliver', 'default',
       jsonb_build_object('delivery_id', "id"), "attempts", "next_attempt_at"
  FROM "webhook_deliveries" WHERE "status" = 'queued';

-- DropIndex
DROP INDEX "webhook_deliveries_status_next_attempt_at_idx";

-- AlterTable
ALTER TABLE "webhook_deliveries" DROP COLUMN "lease_until";
