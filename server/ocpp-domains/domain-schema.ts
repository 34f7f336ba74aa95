import { z } from "zod";

export const MAX_DOMAINS_PER_TENANT = 10;

export const createDomainBody = z.strictObject({
  hostname: z
    .string()
    .min(1)
    .max(254)
    .describe("the hostname chargers will connect to, e.g. ocpp.example.com"),
});
export type CreateDomainInput = z.infer<typeof createDomainBody>;

const recordSchema = z.object({
  type: z.enum(["CNAME", "TXT"]),
  name: z.string().describe("the record's name (add it in the hostname's DNS zone)"),
  value: z.string().describe("the value it must hold"),
  result: z
    .enum(["unchecked", "found", "missing", "wrong", "error"])
    .describe("the last check's result for this record"),
  found: z.array(z.string()).describe("what the service's resolver answered at the last check"),
  message: z.string(),
});

const orderSchema = z.object({
  id: z.string().describe("the ACME order attempt (`dor_…`), the key its retries share"),
  reason: z.enum(["issue", "renew"]),
  status: z.enum(["pending", "succeeded", "failed", "canceled"]),
  tries: z.number().int(),
  error: z
    .object({ kind: z.string(), message: z.string() })
    .nullable()
    .describe("the last failure, kept after a later success"),
  next_try_at: z.string().nullable().describe("when a pending order is tried again"),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export const domainSchema = z.object({
  id: z.string(),
  hostname: z.string(),
  status: z
    .enum([
      "awaiting_records",
      "issuing_certificate",
      "certificate_issued",
      "records_missing",
      "lapsed",
    ])
    .describe(
      "awaiting_records → issuing_certificate → certificate_issued; records_missing when verified records disappear (it keeps working until its certificate lapses), then lapsed",
    ),
  ready: z
    .boolean()
    .describe(
      "true once a TLS handshake to a gateway with this name as SNI presented the domain's certificate (checked after each issue and renewal, and periodically), while that certificate is valid; DNS verification alone does not make it true",
    ),
  connection_url_template: z
    .string()
    .nullable()
    .describe(
      "`wss://<hostname>/ocpp/{station_name}` while `ready`; null otherwise. The project's stations report `connection_url` on the first-registered ready domain",
    ),
  tls_check: z
    .object({
      checked_at: z.string().nullable().describe("the last handshake check"),
      ready_at: z
        .string()
        .nullable()
        .describe("when that check presented the domain's certificate; null if it did not"),
      serial: z.string().nullable().describe("the serial of the certificate the gateway presented"),
      error: z.string().nullable().describe("why the last check did not pass, in words"),
    })
    .describe("the `ready` check: a TLS handshake to a gateway with the hostname as SNI"),
  records: z
    .array(recordSchema)
    .describe("the records to add by hand, with the last check's result"),
  dns: z.object({
    state: z.enum(["pending", "verified", "missing"]),
    checked_at: z.string().nullable(),
    verified_at: z.string().nullable(),
    missing_since: z.string().nullable(),
    message: z.string(),
  }),
  certificate: z.object({
    status: z.enum(["none", "ordering", "retrying", "issued", "renewing", "expired", "failed"]),
    serial: z.string().nullable(),
    not_before: z.string().nullable(),
    not_after: z.string().nullable(),
    renew_after: z.string().nullable(),
    order: orderSchema.nullable().describe("the latest ACME order"),
  }),
  created_at: z.string(),
});
export type DomainView = z.infer<typeof domainSchema>;
