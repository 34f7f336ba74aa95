-- A canceled bill (an external session canceled before it started) is a status of its own.
ALTER TABLE "bills" DROP CONSTRAINT "bills_values_check";
ALTER TABLE "bills" ADD CONSTRAINT "bills_values_check" CHECK (
    "source" IN ('csms', 'simulated')
    AND "status" IN ('open', 'starting', 'start_unknown', 'charging', 'ended', 'final', 'canceled')
    AND "billing_version" IN ('energy-v1', 'elements-v1')
    AND "currency" = 'USD'
    AND "settlement_owner" IN ('managed', 'external')
    AND "hold_minor" BETWEEN 50 AND 10000
    AND ("total_minor" IS NULL OR "total_minor" >= 0)
    AND (("status" = 'final') = ("finalized_at" IS NOT NULL))
    AND ("finalized_at" IS NULL OR ("total_minor" IS NOT NULL AND "subtotal_minor" IS NOT NULL))
    AND ("status" <> 'canceled' OR ("settlement_owner" = 'external' AND "transaction_id" IS NULL))
);
