-- CreateTable
CREATE TABLE "team_billing" (
    "team_id" INTEGER NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'standard',
    "status" TEXT NOT NULL DEFAULT 'active',
    "invoicing_mode" TEXT NOT NULL DEFAULT 'automatic',
    "customer_ref" TEXT,
    "subscription_ref" TEXT,
    "card" JSONB,
    "bank_account" JSONB,
    "default_method_ref" TEXT,
    "card_setup_ref" TEXT,
    "bank_setup_ref" TEXT,
    "past_due_since" TIMESTAMPTZ(3),
    "suspended_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "team_billing_pkey" PRIMARY KEY ("team_id")
);

-- CreateTable
CREATE TABLE "team_invoices" (
    "id" TEXT NOT NULL,
    "team_id" INTEGER NOT NULL,
    "number" TEXT,
    "status" TEXT NOT NULL,
    "amount_due_minor" INTEGER NOT NULL,
    "amount_paid_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "hosted_url" TEXT,
    "pdf_url" TEXT,
    "period_start" TIMESTAMPTZ(3),
    "period_end" TIMESTAMPTZ(3),
    "due_at" TIMESTAMPTZ(3),
    "overdue_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "team_invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "team_usage" (
    "team_id" INTEGER NOT NULL,
    "month" DATE NOT NULL,
    "active_chargers" INTEGER NOT NULL,
    "charging_sessions" INTEGER NOT NULL,
    "energy_wh" BIGINT NOT NULL,
    "billable_reported" INTEGER NOT NULL DEFAULT 0,
    "computed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "team_usage_pkey" PRIMARY KEY ("team_id","month")
);

-- CreateTable
CREATE TABLE "team_billing_calls" (
    "id" TEXT NOT NULL,
    "team_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "request" JSONB NOT NULL,
    "response" JSONB,
    "error" JSONB,
    "month" DATE,
    "value" INTEGER,
    "job_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "team_billing_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "team_billing_customer_ref_idx" ON "team_billing"("customer_ref");

-- CreateIndex
CREATE INDEX "team_invoices_team_id_created_at_idx" ON "team_invoices"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "team_billing_calls_team_id_created_at_idx" ON "team_billing_calls"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "team_billing_calls_status_created_at_idx" ON "team_billing_calls"("status", "created_at");

-- AddForeignKey
ALTER TABLE "team_billing" ADD CONSTRAINT "team_billing_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "team_invoices" ADD CONSTRAINT "team_invoices_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "team_usage" ADD CONSTRAINT "team_usage_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "team_billing_calls" ADD CONSTRAINT "team_billing_calls_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
