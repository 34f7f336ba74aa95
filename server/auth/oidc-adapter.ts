import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db";
import { asJson } from "../lib/json";

/**
 * oidc-provider's storage in PostgreSQL (table oidc_records), so sessions, grants and codes
 * survive restarts and are shared by every web process. One adapter per model name.
 */
export function prismaAdapterFactory(db: () => Db) {
  return class PrismaOidcAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const data = {
        payload: asJson(payload),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await db().oidcRecord.upsert({
        where: { kind_id: { kind: this.kind, id } },
        create: { kind: this.kind, id, ...data },
        update: data,
      });
    }

    private async findWhere(where: { id?: string; uid?: string }) {
      const row = await db().oidcRecord.findFirst({ where: { kind: this.kind, ...where } });
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

    findByUserCode(): Promise<undefined> {
      // Device flow is not enabled.
      return Promise.resolve(undefined);
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
