import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db";
import { asJson } from "../lib/json";

/**
 * A device code's row outlives the code by this long, so a client polling after the code expired
 * reads `expired_token` (RFC 8628; the provider checks the payload's own `exp`) rather than
 * `invalid_grant`, and a person entering it reads "expired" rather than "not found".
 */
const DEVICE_CODE_GRACE_SECONDS = 3600;

/**
 * oidc-provider's storage in PostgreSQL (table oidc_records), so sessions, grants and codes
 * survive restarts and are shared by every web process. One adapter per model name.
 */
export function prismaAdapterFactory(db: () => Db) {
  return class PrismaOidcAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    private get graceSeconds() {
      return this.kind === "DeviceCode" ? DEVICE_CODE_GRACE_SECONDS : 0;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const data = {
        payload: asJson(payload),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + (expiresIn + this.graceSeconds) * 1000) : null,
      };
      await db().oidcRecord.upsert({
        where: { kind_id: { kind: this.kind, id } },
        create: { kind: this.kind, id, ...data },
        update: data,
      });
    }

    private async findWhere(where: { id?: string; uid?: string; userCode?: string }) {
      // A user code may repeat once its earlier device code has expired: the newest wins.
      const row = await db().oidcRecord.findFirst({
        where: { kind: this.kind, ...where },
        orderBy: { expiresAt: "desc" },
      });
      if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt
        ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) }
        : payload;
    }

    find(id: string) {
      return this.findWhere({ id });
    }

    findByUid(uid: string) {
      return this.findWhere({ uid });
    }

    findByUserCode(userCode: string) {
      return this.findWhere({ userCode });
    }

    async consume(id: string): Promise<void> {
      await db().oidcRecord.updateMany({
        where: { kind: this.kind, id },
        data: { consumedAt: new Date() },
      });
    }

    async destroy(id: string): Promise<void> {
      await db().oidcRecord.deleteMany({ where: { kind: this.kind, id } });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db().oidcRecord.deleteMany({ where: { grantId } });
    }
  };
}
