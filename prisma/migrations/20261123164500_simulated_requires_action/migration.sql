-- The simulator's checkout can leave an intent waiting for 3-D Secure (`requires_action`), as a
-- card processor does when the payer starts authentication and does not finish it.
ALTER TABLE "simulated_intents" DROP CONSTRAINT "simulated_intents_status_check";
ALTER TABLE "simulated_intents" ADD CONSTRAINT "simulated_intents_status_check" CHECK (
    "status" IN ('requires_payment_method', 'requires_action', 'requires_capture', 'succeeded', 'canceled')
    AND "checkout_status" IN ('open', 'complete', 'expired')
);
