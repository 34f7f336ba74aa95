-- AlterTable
ALTER TABLE "bills" ADD COLUMN     "session_id" TEXT;

-- CreateTable
CREATE TABLE "charging_sessions" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "station_id" INTEGER NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "bill_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "application_reference" TEXT,
    "processor" TEXT,
    "merchant_reference" TEXT,
    "payment_reference" TEXT,
    "status" TEXT NOT NULL DEFAULT 'created',
    "funding_confirmed" BOOLEAN NOT NULL DEFAULT false,
    "start_operation_id" TEXT,
    "stop_operation_id" TEXT,
    "open_connector_id" INTEGER,
    "reconciliation_flags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "final_usage" JSONB,
    "canceled_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "charging_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settlement_reports" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "session_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "operation_reference" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "actor_id" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settlement_reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "charging_sessions_bill_id_key" ON "charging_sessions"("bill_id");

-- CreateIndex
CREATE UNIQUE INDEX "charging_sessions_open_connector_id_key" ON "charging_sessions"("open_connector_id");

-- CreateIndex
CREATE INDEX "charging_sessions_tenant_id_id_idx" ON "charging_sessions"("tenant_id", "id");

-- CreateIndex
CREATE INDEX "settlement_reports_session_id_received_at_idx" ON "settlement_reports"("session_id", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "settlement_reports_session_id_kind_operation_reference_outc_key" ON "settlement_reports"("session_id", "kind", "operation_reference", "outcome");

-- CreateIndex
CREATE UNIQUE INDEX "bills_session_id_key" ON "bills"("session_id");

-- AddForeignKey
ALTER TABLE "charging_sessions" ADD CONSTRAINT "charging_sessions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charging_sessions" ADD CONSTRAINT "charging_sessions_bill_id_fkey" FOREIGN KEY ("bill_id") REFERENCES "bills"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "settlement_reports" ADD CONSTRAINT "settlement_reports_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "charging_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Invariants the code keeps, held by the database too.
ALTER TABLE "charging_sessions" ADD CONSTRAINT "charging_sessions_values_check" CHECK (
    "source" IN ('csms', 'simulated')
    AND "status" IN ('created', 'starting', 'start_unknown', 'charging', 'stopping',
                     'awaiting_bill', 'final', 'canceled')
    AND ("open_connector_id" IS NULL OR ("source" = 'csms' AND "open_connector_id" = "connector_id"))
);
ALTER TABLE "settlement_reports" ADD CONSTRAINT "settlement_reports_values_check" CHECK (
    "kind" IN ('authorization', 'capture', 'refund', 'release')
    AND "outcome" IN ('pending', 'unknown', 'succeeded', 'failed')
    AND "currency" = 'USD'
    AND "amount_minor" >= 0
    AND ("kind" <> 'release' OR "amount_minor" = 0)
);

-- Reports are append-only assertions: what was received is never rewritten, whatever code runs.
CREATE FUNCTION "settlement_reports_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'settlement report % is an assertion as received: it never changes', OLD."id"
        USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER "settlement_reports_append_only" BEFORE UPDATE ON "settlement_reports"
    FOR EACH ROW EXECUTE FUNCTION "settlement_reports_append_only"();
