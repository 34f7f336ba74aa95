import { DomainError } from "../errors";
import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { sha256Hex } from "../lib/ids";
import { canonicalJson } from "./body";

/**
 * Idempotency-Key (IETF httpapi draft "The Idempotency-Key HTTP Header Field"):
 * - 8 to 128 printable ASCII characters; a missing key where required is 400, a malformed one 400;
 * - the same key with the same method, path and body replays the first status and body;
 * - the same key with another request is 422 `idempotency_key_reused`;
 * - keys are scoped to the API key, kept 24 hours.
 *
 * The key's record is inserted in the same database transaction as the handler's writes. A
 * concurrent request with the same key blocks on that row until the first commits, then replays
 * it; if the first rolls back (an error answer), the next one runs afresh. So N concurrent
 * identical requests create exactly one resource, and errors are never cached. A transaction
 * PostgreSQL aborts for a deadlock or serialization failure runs again whole, record included, so
 * the retry either replays a request that committed meanwhile or runs afresh; never half of one.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{8,128}$/;
export const IDEMPOTENCY_TTL_HOURS = 24;

export function readIdempotencyKey(header: string | null, required: boolean): string | undefined {
  if (header === null || header === "") {
    if (required) {
      throw new DomainError(
        "idempotency_key_missing",
        "This route requires an Idempotency-Key header.",
        {
          header: "Idempotency-Key",
        },
      );
    }
    return undefined;
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new DomainError(
      "idempotency_key_invalid",
      "Idempotency-Key must be 8 to 128 printable characters without spaces.",
      { header: "Idempotency-Key" },
    );
  }
  return header;
}

/**
 * Does this key have a live record (answered, or in progress)? Read outside any transaction, to
 * skip a route's `prepare` for a request its record will replay or refuse; a record that goes
 * meanwhile (its request rolled back) leaves the work to the handler.
 */
export async function idempotencyRecorded(db: Db, apiKeyId: string, key: string) {
  const rows = await db.$queryRaw<unknown[]>`
    SELECT 1 FROM idempotency_records
     WHERE api_key_id = ${apiKeyId} AND key = ${key}
       AND created_at >= now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;
  return rows.length > 0;
}

export type StoredResponse = { status: number; body: unknown; replayed: boolean };

export async function withIdempotency(
  db: Db,
  scope: { apiKeyId: string; key: string; method: string; path: string; body: unknown },
  run: (tx: DbTx) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const requestHash = sha256Hex(
    `${scope.method} ${scope.path}\n${canonicalJson(scope.body ?? null)}`,
  );
  return inTransaction(
    db,
    async (tx) => {
      const claimed = await tx.$queryRaw<{ key: string }[]>`
        INSERT INTO idempotency_records (api_key_id, key, method, path, request_hash)
        VALUES (${scope.apiKeyId}, ${scope.key}, ${scope.method}, ${scope.path}, ${requestHash})
        ON CONFLICT (api_key_id, key) DO UPDATE SET
          method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
          created_at = now(), response_status = NULL, response_body = NULL, completed_at = NULL
          WHERE idempotency_records.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
        RETURNING key`;
      if (claimed.length === 0) {
        const existing = await tx.idempotencyRecord.findUnique({
          where: { apiKeyId_key: { apiKeyId: scope.apiKeyId, key: scope.key } },
        });
        if (!existing || existing.requestHash !== requestHash) {
          throw new DomainError(
            "idempotency_key_reused",
            "This Idempotency-Key was used with a different request; use a new key for a new operation.",
            { header: "Idempotency-Key" },
          );
        }
        if (existing.responseStatus === null) {
          throw new DomainError(
            "idempotency_key_in_progress",
            "A request with this Idempotency-Key is still in progress.",
            {},
          );
        }
        return { status: existing.responseStatus, body: existing.responseBody, replayed: true };
      }
      const response = await run(tx);
      // The body as JSON text, kept as sent (a `json` column), so a replay has the same keys in the
      // same order; no body (a 204) leaves it NULL.
      const body = response.body === undefined ? null : JSON.stringify(response.body);
      await tx.$executeRaw`
        UPDATE idempotency_records
           SET response_status = ${response.status}, response_body = ${body}::json,
               completed_at = ${new Date()}
         WHERE api_key_id = ${scope.apiKeyId} AND key = ${scope.key}`;
      return { ...response, replayed: false };
    },
    { maxWait: 15_000, timeout: 30_000 },
  );
}
