-- CreateIndex
CREATE INDEX "bills_tenant_id_finalized_at_idx" ON "bills"("tenant_id", "finalized_at");

-- CreateIndex
CREATE INDEX "faults_tenant_id_cleared_at_idx" ON "faults"("tenant_id", "cleared_at");

-- CreateIndex
CREATE INDEX "transactions_tenant_id_started_at_idx" ON "transactions"("tenant_id", "started_at");

-- CreateIndex
CREATE INDEX "transactions_tenant_id_ended_at_idx" ON "transactions"("tenant_id", "ended_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_tenant_id_status_created_at_idx" ON "webhook_deliveries"("tenant_id", "status", "created_at");
