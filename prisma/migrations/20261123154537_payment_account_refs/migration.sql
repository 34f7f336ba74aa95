-- CreateIndex
CREATE UNIQUE INDEX "payment_accounts_live_account_ref_key" ON "payment_accounts"("account_ref") WHERE (status <> 'disconnected'::text);

-- The statuses the service writes (server/payments/accounts/account-status.ts).
ALTER TABLE "payment_accounts" ADD CONSTRAINT "payment_accounts_status_check"
    CHECK ("status" IN ('onboarding', 'active', 'restricted', 'disconnected'));
