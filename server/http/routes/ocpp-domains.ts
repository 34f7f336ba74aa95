import { z } from "zod";
import {
  deleteDomain,
  getDomain,
  listDomains,
  registerDomain,
  verifyDomain,
} from "../../ocpp-domains/manage-domains";
import { createDomainBody, domainSchema } from "../../ocpp-domains/domain-schema";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "OCPP domains";
const domainParams = z.object({
  tenant_id: idParam,
  domain_id: z.string().regex(/^dom_[0-9A-Za-z]{1,40}$/, "must be an OCPP domain ID"),
});

export const ocppDomainRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/ocpp-domains",
    operationId: "createOcppDomain",
    summary: "Register a hostname for chargers",
    description:
      "201 with the two `records` to add by hand in the hostname's DNS zone: a CNAME to the service's gateways and a TXT that proves the zone is yours. Then call verify. The hostname must be a public subdomain (`ocpp.example.com`), not an IP address, a local name or one of this service's own hostnames (422 `ocpp_domain_invalid`); one project per hostname (409 `ocpp_domain_taken`); ten per project (409 `ocpp_domain_limit`). `ready` stays false until a TLS handshake with the name succeeds.",
    tag,
    auth: "tenant",
    scopes: ["stations:admin"],
    params: tenantParams,
    body: createDomainBody,
    idempotency: "required",
    status: 201,
    response: domainSchema,
    errors: ["ocpp_domain_invalid", "ocpp_domain_taken", "ocpp_domain_limit"],
    handler: async ({ params, body, db }) => ({
      body: await registerDomain({ tenantId: params.tenant_id, input: body, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/ocpp-domains",
    operationId: "listOcppDomains",
    summary: "The project's OCPP domains, oldest first",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    status: 200,
    response: z.object({ data: z.array(domainSchema) }),
    handler: async ({ params, rootDb }) => ({
      body: await listDomains({ tenantId: params.tenant_id, db: rootDb }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/ocpp-domains/{domain_id}",
    operationId: "getOcppDomain",
    summary:
      "One OCPP domain: its state, each record's last check, its certificate and latest ACME order",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: domainParams,
    status: 200,
    response: domainSchema,
    handler: async ({ params, rootDb }) => ({
      body: await getDomain({
        tenantId: params.tenant_id,
        domainId: params.domain_id,
        db: rootDb,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/ocpp-domains/{domain_id}/verify",
    operationId: "verifyOcppDomain",
    summary: "Check the domain's DNS records now",
    description:
      "The service resolves both records itself and answers with each one's result (`found`, `missing`, `wrong`, `error`). Once both are found the domain is verified and a certificate is ordered by ACME in the background (`certificate.order`). Safe to repeat; the records are also checked periodically, and records removed after verification flag the domain `records_missing`.",
    tag,
    auth: "tenant",
    scopes: ["stations:admin"],
    params: domainParams,
    status: 200,
    response: domainSchema,
    handler: async ({ params, rootDb }) => ({
      body: await verifyDomain({
        tenantId: params.tenant_id,
        domainId: params.domain_id,
        db: rootDb,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/ocpp-domains/{domain_id}",
    operationId: "deleteOcppDomain",
    summary: "Delete an OCPP domain and its certificate",
    description:
      "The hostname is free to register again. An ACME order in flight ends without effect; the certificate's key is deleted with the domain.",
    tag,
    auth: "tenant",
    scopes: ["stations:admin"],
    params: domainParams,
    status: 200,
    response: z.object({ id: z.string(), hostname: z.string(), deleted: z.literal(true) }),
    handler: async ({ params, rootDb }) => ({
      body: await deleteDomain({
        tenantId: params.tenant_id,
        domainId: params.domain_id,
        db: rootDb,
      }),
    }),
  }),
];
