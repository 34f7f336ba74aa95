-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "default_hold_minor" INTEGER NOT NULL DEFAULT 5000,
ADD COLUMN     "hold_margin_minor" INTEGER NOT NULL DEFAULT 100;

-- CreateTable
CREATE TABLE "bills" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "tariff_id" INTEGER NOT NULL,
    "tariff_version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "pricing_group" TEXT,
    "merchant_validation" TEXT,
    "billing_version" TEXT NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "status" TEXT NOT NULL DEFAULT 'open',
    "settlement_owner" TEXT NOT NULL DEFAULT 'managed',
    "hold_minor" INTEGER NOT NULL,
    "charging_token" TEXT NOT NULL,
    "start_operation_id" TEXT,
    "transaction_id" INTEGER,
    "stop_reason" TEXT,
    "stop_operation_id" TEXT,
    "running_cost_minor" INTEGER,
    "running_priced_at" TIMESTAMPTZ(3),
    "cost_updated_at" TIMESTAMPTZ(3),
    "energy_wh" INTEGER,
    "duration_seconds" INTEGER,
    "subtotal_minor" INTEGER,
    "total_minor" INTEGER,
    "adjustments" JSONB,
    "cost_breakdown" JSONB,
    "finalized_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "bills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "bill_id" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "captured_minor" INTEGER NOT NULL DEFAULT 0,
    "refunded_minor" INTEGER NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "processor_account" TEXT,
    "processor_checkout_ref" TEXT,
    "processor_intent_ref" TEXT,
    "checkout_url" TEXT,
    "return_url" TEXT,
    "authorized_at" TIMESTAMPTZ(3),
    "captured_at" TIMESTAMPTZ(3),
    "released_at" TIMESTAMPTZ(3),
    "refunded_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "needs_reconciliation" BOOLEAN NOT NULL DEFAULT false,
    "reconciliation_reason" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "bills_transaction_id_key" ON "bills"("transaction_id");

-- CreateIndex
CREATE INDEX "bills_tenant_id_id_idx" ON "bills"("tenant_id", "id");

-- CreateIndex
CREATE INDEX "bills_station_id_status_idx" ON "bills"("station_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "bills_tenant_id_charging_token_key" ON "bills"("tenant_id", "charging_token");

-- CreateIndex
CREATE UNIQUE INDEX "payments_bill_id_key" ON "payments"("bill_id");

-- CreateIndex
CREATE INDEX "payments_tenant_id_id_idx" ON "payments"("tenant_id", "id");

-- CreateIndex
CREATE INDEX "payments_tenant_id_status_idx" ON "payments"("tenant_id", "status");

-- AddForeignKey
ALTER TABLE "bills" ADD CONSTRAINT "bills_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bills" ADD CONSTRAINT "bills_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "stations"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bills" ADD CONSTRAINT "bills_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bills" ADD CONSTRAINT "bills_tariff_id_tariff_version_fkey" FOREIGN KEY ("tariff_id", "tariff_version") REFERENCES "tariff_versions"("tariff_id", "version") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bills" ADD CONSTRAINT "bills_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "transactions"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_bill_id_fkey" FOREIGN KEY ("bill_id") REFERENCES "bills"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- Invariants the code keeps, held by the database too.
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_hold_settings_check" CHECK (
    "default_hold_minor" BETWEEN 50 AND 10000
    AND "hold_margin_minor" BETWEEN 0 AND 9950
);
ALTER TABLE "bills" ADD CONSTRAINT "bills_values_check" CHECK (
    "source" IN ('csms', 'simulated')
    AND "status" IN ('open', 'starting', 'start_unknown', 'charging', 'ended', 'final')
    AND "billing_version" IN ('energy-v1', 'elements-v1')
    AND "currency" = 'USD'
    AND "settlement_owner" IN ('managed', 'external')
    AND "hold_minor" BETWEEN 50 AND 10000
    AND ("total_minor" IS NULL OR "total_minor" >= 0)
    AND (("status" = 'final') = ("finalized_at" IS NOT NULL))
    AND ("finalized_at" IS NULL OR ("total_minor" IS NOT NULL AND "subtotal_minor" IS NOT NULL))
);
ALTER TABLE "payments" ADD CONSTRAINT "payments_amounts_check" CHECK (
    "service" IN ('card', 'simulator')
    AND "currency" = 'USD'
    AND "amount_minor" BETWEEN 50 AND 10000
    AND "captured_minor" BETWEEN 0 AND "amount_minor"
    AND "refunded_minor" BETWEEN 0 AND "captured_minor"
);

-- A final bill never changes: once finalized_at is set, an UPDATE of its amount or of anything
-- that priced it is refused, whatever code runs it (the bills code never tries).
CREATE FUNCTION "bills_final_is_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD."finalized_at" IS NOT NULL AND (
        NEW."status", NEW."total_minor", NEW."subtotal_minor", NEW."energy_wh",
        NEW."duration_seconds", NEW."adjustments", NEW."cost_breakdown", NEW."finalized_at",
        NEW."transaction_id", NEW."tariff_id", NEW."tariff_version", NEW."hold_minor",
        NEW."pricing_group", NEW."merchant_validation", NEW."billing_version", NEW."source",
        NEW."currency", NEW."tenant_id", NEW."station_id", NEW."connector_id"
    ) IS DISTINCT FROM (
        OLD."status", OLD."total_minor", OLD."subtotal_minor", OLD."energy_wh",
        OLD."duration_seconds", OLD."adjustments", OLD."cost_breakdown", OLD."finalized_at",
        OLD."transaction_id", OLD."tariff_id", OLD."tariff_version", OLD."hold_minor",
        OLD."pricing_group", OLD."merchant_validation", OLD."billing_version", OLD."source",
        OLD."currency", OLD."tenant_id", OLD."station_id", OLD."connector_id"
    ) THEN
        RAISE EXCEPTION 'bill % is final: its amount cannot change', OLD."id"
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER "bills_final_is_immutable" BEFORE UPDATE ON "bills"
    FOR EACH ROW EXECUTE FUNCTION "bills_final_is_immutable"();
