-- CreateTable
CREATE TABLE "simulated_intents" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "metadata" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "checkout_status" TEXT NOT NULL,
    "checkout_token" TEXT NOT NULL,
    "success_url" TEXT NOT NULL,
    "cancel_url" TEXT NOT NULL,
    "amount_capturable" INTEGER NOT NULL DEFAULT 0,
    "amount_captured" INTEGER NOT NULL DEFAULT 0,
    "amount_refunded" INTEGER NOT NULL DEFAULT 0,
    "cancellation_reason" TEXT,
    "last_error" JSONB,
    "checkout_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "authorized_at" TIMESTAMPTZ(3),
    "authorization_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "simulated_intents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "simulated_idempotency_records" (
    "tenant_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "simulated_idempotency_records_pkey" PRIMARY KEY ("tenant_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "simulated_intents_checkout_token_key" ON "simulated_intents"("checkout_token");

-- CreateIndex
CREATE INDEX "simulated_intents_tenant_id_idx" ON "simulated_intents"("tenant_id");

-- Money invariants the simulator's code keeps, held by the database too: amounts never go
-- negative, never capture more than the hold, never refund more than was captured.
ALTER TABLE "simulated_intents" ADD CONSTRAINT "simulated_intents_amounts_check" CHECK (
    "amount_minor" > 0
    AND "amount_capturable" BETWEEN 0 AND "amount_minor"
    AND "amount_captured" BETWEEN 0 AND "amount_minor"
    AND "amount_refunded" BETWEEN 0 AND "amount_captured"
);
ALTER TABLE "simulated_intents" ADD CONSTRAINT "simulated_intents_status_check" CHECK (
    "status" IN ('requires_payment_method', 'requires_capture', 'succeeded', 'canceled')
    AND "checkout_status" IN ('open', 'complete', 'expired')
);
