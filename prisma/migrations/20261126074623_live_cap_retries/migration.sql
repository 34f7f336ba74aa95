-- AlterTable
ALTER TABLE "bills" ADD COLUMN     "cap_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "hold_exceeded_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "bills_cap_stopping_idx" ON "bills"("id") WHERE ((status = 'charging'::text) AND (stop_reason = 'hold_limit'::text));

ALTER TABLE "bills" ADD CONSTRAINT "bills_cap_attempts_check" CHECK ("cap_attempts" >= 0);
