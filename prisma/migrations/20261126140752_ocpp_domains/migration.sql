-- CreateTable
CREATE TABLE "ocpp_domains" (
    "id" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "hostname" TEXT NOT NULL,
    "verification_token" TEXT NOT NULL,
    "dns_state" TEXT NOT NULL DEFAULT 'pending',
    "dns_checks" JSONB,
    "dns_checked_at" TIMESTAMPTZ(3),
    "dns_verified_at" TIMESTAMPTZ(3),
    "dns_missing_since" TIMESTAMPTZ(3),
    "certificate_pem" TEXT,
    "certificate_key" TEXT,
    "certificate_serial" TEXT,
    "certificate_not_before" TIMESTAMPTZ(3),
    "certificate_not_after" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ocpp_domains_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ocpp_domain_orders" (
    "id" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "private_key" TEXT NOT NULL,
    "order_url" TEXT,
    "tries" INTEGER NOT NULL DEFAULT 0,
    "error" JSONB,
    "next_try_at" TIMESTAMPTZ(3),
    "job_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "ocpp_domain_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "acme_accounts" (
    "directory_url" TEXT NOT NULL,
    "account_key" TEXT NOT NULL,
    "account_url" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "acme_accounts_pkey" PRIMARY KEY ("directory_url")
);

-- CreateTable
CREATE TABLE "acme_challenges" (
    "token" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "key_authorization" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "acme_challenges_pkey" PRIMARY KEY ("token")
);

-- CreateIndex
CREATE UNIQUE INDEX "ocpp_domains_hostname_key" ON "ocpp_domains"("hostname");

-- CreateIndex
CREATE INDEX "ocpp_domains_tenant_id_created_at_idx" ON "ocpp_domains"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "ocpp_domain_orders_domain_id_created_at_idx" ON "ocpp_domain_orders"("domain_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ocpp_domain_orders_open_key" ON "ocpp_domain_orders"("domain_id") WHERE (status = 'pending'::text);

-- CreateIndex
CREATE INDEX "acme_challenges_domain_id_idx" ON "acme_challenges"("domain_id");

-- AddForeignKey
ALTER TABLE "ocpp_domains" ADD CONSTRAINT "ocpp_domains_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ocpp_domain_orders" ADD CONSTRAINT "ocpp_domain_orders_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "ocpp_domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "acme_challenges" ADD CONSTRAINT "acme_challenges_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "ocpp_domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;
