-- AlterTable
ALTER TABLE "bills" ADD COLUMN     "price_summary" TEXT;

-- A final bill's words are as immutable as its amount.
CREATE OR REPLACE FUNCTION "bills_final_is_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD."finalized_at" IS NOT NULL AND (
        NEW."status", NEW."total_minor", NEW."subtotal_minor", NEW."energy_wh",
        NEW."duration_seconds", NEW."adjustments", NEW."cost_breakdown", NEW."finalized_at",
        NEW."transaction_id", NEW."tariff_id", NEW."tariff_version", NEW."hold_minor",
        NEW."pricing_group", NEW."merchant_validation", NEW."billing_version", NEW."source",
        NEW."currency", NEW."tenant_id", NEW."station_id", NEW."connector_id", NEW."price_summary"
    ) IS DISTINCT FROM (
        OLD."status", OLD."total_minor", OLD."subtotal_minor", OLD."energy_wh",
        OLD."duration_seconds", OLD."adjustments", OLD."cost_breakdown", OLD."finalized_at",
        OLD."transaction_id", OLD."tariff_id", OLD."tariff_version", OLD."hold_minor",
        OLD."pricing_group", OLD."merchant_validation", OLD."billing_version", OLD."source",
        OLD."currency", OLD."tenant_id", OLD."station_id", OLD."connector_id", OLD."price_summary"
    ) THEN
        RAISE EXCEPTION 'bill % is final: its amount cannot change', OLD."id"
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;
