import type { DbTx } from "../db";

/**
 * The OCPP endpoint base (`wss://<hostname>/ocpp`) a tenant's stations report in
 * `connection_url`, when the tenant has a ready custom domain (server/ocpp-domains/README.md,
 * "Ready"): its last TLS check presented its certificate, and the certificate is still valid. With
 * several, the one registered first (then the lowest id): a stable choice, so adding a second
 * domain does not move every station's URL; deleting or lapsing it moves them to the next ready
 * one, or back to the service's own URL (null here).
 */
export async function readyDomainBase(
  db: DbTx,
  tenantId: number,
  now = new Date(),
): Promise<string | null> {
  const [ready] = await db.$queryRaw<{ hostname: string }[]>`
    SELECT hostname FROM ocpp_domains
    WHERE tenant_id = ${tenantId} AND tls_ready_at IS NOT NULL AND certificate_not_after > ${now}
    ORDER BY created_at, id
    LIMIT 1`;
  return ready ? `wss://${ready.hostname}/ocpp` : null;
}
