-- AlterTable
ALTER TABLE "oidc_records" ADD COLUMN     "user_code" TEXT;

-- CreateIndex
CREATE INDEX "oidc_records_user_code_idx" ON "oidc_records"("user_code");
