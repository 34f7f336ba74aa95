-- AlterTable
-- (the job asking for each attempt: until now always the one keyed by the attempt's id)
ALTER TABLE "payment_attempts" ADD COLUMN     "job_id" TEXT;
UPDATE "payment_attempts" SET "job_id" = 'payments.attempt:' || "id";
ALTER TABLE "payment_attempts" ALTER COLUMN "job_id" SET NOT NULL;

-- CreateTable
CREATE TABLE "payment_account_attempts" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "account_ref" TEXT,
    "request" JSONB NOT NULL,
    "response" JSONB,
    "error" JSONB,
    "job_id" TEXT NOT NULL,
    "created_by" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "payment_account_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payment_account_attempts_status_created_at_idx" ON "payment_account_attempts"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "payment_account_attempts_creating_key" ON "payment_account_attempts"("tenant_id") WHERE ((kind = 'create'::text) AND (status = ANY (ARRAY['pending'::text, 'unknown'::text])));

-- CreateIndex
CREATE INDEX "payments_open_idx" ON "payments"("status", "created_at") WHERE (status = ANY (ARRAY['pending'::text, 'authorized'::text, 'capturing'::text, 'releasing'::text, 'refunding'::text]));

-- CreateIndex
CREATE INDEX "processor_events_processed_at_idx" ON "processor_events"("processed_at");

-- AddForeignKey
ALTER TABLE "payment_account_attempts" ADD CONSTRAINT "payment_account_attempts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The statuses the service writes (server/payments/accounts/account-schema.ts): Stripe may
-- revoke the platform's access to an account (`access_revoked`).
ALTER TABLE "payment_accounts" DROP CONSTRAINT "payment_accounts_status_check";
ALTER TABLE "payment_accounts" ADD CONSTRAINT "payment_accounts_status_check"
    CHECK ("status" IN ('onboarding', 'active', 'restricted', 'access_revoked', 'disconnected'));

-- Invariants the code keeps, held by the database too.
ALTER TABLE "payment_account_attempts" ADD CONSTRAINT "payment_account_attempts_values_check" CHECK (
    "kind" IN ('create', 'deauthorize')
    AND "status" IN ('pending', 'succeeded', 'failed', 'unknown', 'abandoned')
    AND ("kind" = 'create' OR "account_ref" IS NOT NULL)
);
