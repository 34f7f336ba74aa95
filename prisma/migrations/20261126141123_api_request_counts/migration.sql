-- CreateTable
CREATE TABLE "api_request_counts" (
    "tenant_id" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "api_request_counts_pkey" PRIMARY KEY ("tenant_id","day")
);

-- AddForeignKey
ALTER TABLE "api_request_counts" ADD CONSTRAINT "api_request_counts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
