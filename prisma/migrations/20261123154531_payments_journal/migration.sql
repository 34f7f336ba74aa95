-- CreateTable
CREATE TABLE "payment_attempts" (
    "id" TEXT NOT NULL,
    "payment_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "amount_minor" INTEGER,
    "request" JSONB NOT NULL,
    "response" JSONB,
    "error" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "payment_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processor_events" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "account" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "processor_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payment_attempts_payment_id_created_at_idx" ON "payment_attempts"("payment_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_attempts_status_created_at_idx" ON "payment_attempts"("status", "created_at");

-- AddForeignKey
ALTER TABLE "payment_attempts" ADD CONSTRAINT "payment_attempts_payment_id_fkey" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Invariants the code keeps, held by the database too.
ALTER TABLE "payment_attempts" ADD CONSTRAINT "payment_attempts_values_check" CHECK (
    "kind" IN ('authorize', 'capture', 'release', 'refund', 'read')
    AND "status" IN ('pending', 'succeeded', 'failed', 'unknown')
    AND ("amount_minor" IS NULL OR "amount_minor" >= 0)
);
ALTER TABLE "payments" ADD CONSTRAINT "payments_values_check" CHECK (
    "service" IN ('card', 'simulator')
    AND "status" IN ('pending', 'authorized', 'capturing', 'captured', 'releasing', 'released',
                     'refunding', 'refunded', 'failed', 'expired')
    AND "amount_minor" BETWEEN 50 AND 10000
    AND "captured_minor" BETWEEN 0 AND "amount_minor"
    AND "refunded_minor" BETWEEN 0 AND "captured_minor"
);
