import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { asJson } from "../lib/json";
import { toPage, type Pagination } from "../lib/pagination";
import type { ApiVersion } from "../versions";
import { externalReferenceTaken } from "../locations/create-location";
import { isComplex, validateTariff, type TariffSnapshot } from "../pricing";
import { isUniqueViolation } from "../lib/unique-violation";
import { presentTariff } from "./present-tariff";
import { tariffMetaSchema } from "./tariff-schema";
import { tariffSnapshot } from "./tariff-snapshot";

const META_KEYS = ["name", "external_reference"] as const;

/** Splits a body into resource fields and the snapshot, validating both; 422 `tariff_invalid` lists every path. */
export function parseTariffBody(body: Record<string, unknown>): {
  meta: { name?: string; external_reference?: string | null };
  snapshot: TariffSnapshot;
} {
  const metaInput = Object.fromEntries(META_KEYS.filter((k) => k in body).map((k) => [k, body[k]]));
  const rest = Object.fromEntries(
    Object.entries(body).filter(([k]) => !(META_KEYS as readonly string[]).includes(k)),
  );
  const meta = tariffMetaSchema.safeParse(metaInput);
  const snapshot = validateTariff(rest);
  const issues = [
    ...(meta.success
      ? []
      : meta.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }))),
    ...(snapshot.ok ? [] : snapshot.issues),
  ];
  if (issues.length || !meta.success || !snapshot.ok) {
    throw new DomainError(
      "tariff_invalid",
      `Invalid tariff: ${issues[0]?.path || "tariff"} ${issues[0]?.message ?? ""}`.trim(),
      {
        issues,
        fields: issues.map((i) => ({ field: i.path, message: i.message })),
      },
    );
  }
  return { meta: meta.data, snapshot: snapshot.tariff };
}

async function load(db: DbTx, tenantId: number, tariffId: number) {
  const row = await db.tariff.findFirst({ where: { id: tariffId, tenantId, deletedAt: null } });
  if (!row) throw notFound("tariff");
  const current = await db.tariffVersion.findUniqueOrThrow({
    where: { tariffId_version: { tariffId, version: row.currentVersion } },
  });
  return { row, current };
}

export async function createTariff({
  tenantId,
  body,
  version,
  db = defaultDb(),
}: {
  tenantId: number;
  body: Record<string, unknown>;
  version: ApiVersion;
  db?: DbTx;
}) {
  const { meta, snapshot } = parseTariffBody(body);
  try {
    const row = await db.tariff.create({
      data: {
        tenantId,
        name: meta.name ?? "",
        externalReference: meta.external_reference ?? null,
        versions: {
          create: { version: 1, snapshot: asJson(snapshot) },
        },
      },
      include: { versions: true },
    });
    return presentTariff(row, row.versions[0]!, version);
  } catch (error) {
    if (isUniqueViolation(error, "external_reference"))
      throw externalReferenceTaken(meta.external_reference ?? undefined);
    throw error;
  }
}

export async function getTariff({
  tenantId,
  tariffId,
  version,
  db = defaultDb(),
}: {
  tenantId: number;
  tariffId: number;
  version: ApiVersion;
  db?: DbTx;
}) {
  const { row, current } = await load(db, tenantId, tariffId);
  return presentTariff(row, current, version);
}

export async function listTariffs({
  tenantId,
  page,
  version,
  db = defaultDb(),
}: {
  tenantId: number;
  page: Pagination;
  version: ApiVersion;
  db?: DbTx;
}) {
  const rows = await db.tariff.findMany({
    where: { tenantId, deletedAt: null, id: { gt: page.after } },
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });
  const versions = await db.tariffVersion.findMany({
    where: { OR: rows.map((r) => ({ tariffId: r.id, version: r.currentVersion })) },
  });
  const byTariff = new Map(versions.map((v) => [v.tariffId, v]));
  return toPage(
    rows,
    page.limit,
    (r) => r.id,
    (r) => presentTariff(r, byTariff.get(r.id)!, version),
  );
}

/**
 * Edits write a new version (fields given replace the current ones; `null` removes an optional
 * one); earlier versions, and what bills priced against them, never change. A 2026-10-14 client
 * cannot see a complex tariff's elements, so changing only its `rate_minor_per_kwh` is refused
 * (409 `tariff_complex`).
 */
export async function updateTariff({
  tenantId,
  tariffId,
  body,
  version,
  db = defaultDb(),
}: {
  tenantId: number;
  tariffId: number;
  body: Record<string, unknown>;
  version: ApiVersion;
  db?: DbTx;
}) {
  await db.$queryRaw`SELECT id FROM tariffs WHERE id = ${tariffId} AND tenant_id = ${tenantId} FOR UPDATE`;
  const { row, current } = await load(db, tenantId, tariffId);
  const previous = tariffSnapshot(current);
  if (isComplex(previous) && "rate_minor_per_kwh" in body && !("elements" in body)) {
    throw new DomainError(
      "tariff_complex",
      "This is a complex tariff: edit its elements (version 2026-10-15) rather than its base rate.",
      { tariff_id: tariffId },
    );
  }
  const merged: Record<string, unknown> = {
    name: row.name,
    external_reference: row.externalReference,
    ...previous,
    ...body,
  };
  if ("elements" in body && !("rate_minor_per_kwh" in body)) delete merged.rate_minor_per_kwh;
  for (const [key, value] of Object.entries(merged))
    if (value === null && key !== "external_reference") delete merged[key];
  const { meta, snapshot } = parseTariffBody(merged);
  const next = row.currentVersion + 1;
  try {
    const updated = await db.tariff.update({
      where: { id: tariffId },
      data: {
        name: meta.name ?? "",
        externalReference: meta.external_reference ?? null,
        currentVersion: next,
        versions: {
          create: { version: next, snapshot: asJson(snapshot) },
        },
      },
    });
    const created = await db.tariffVersion.findUniqueOrThrow({
      where: { tariffId_version: { tariffId, version: next } },
    });
    return presentTariff(updated, created, version);
  } catch (error) {
    if (isUniqueViolation(error, "external_reference"))
      throw externalReferenceTaken(meta.external_reference ?? undefined);
    throw error;
  }
}

/** Deletes a tariff for new use; its versions stay for whatever already priced against them. */
export async function deleteTariff({
  tenantId,
  tariffId,
  version,
  db = defaultDb(),
}: {
  tenantId: number;
  tariffId: number;
  version: ApiVersion;
  db?: DbTx;
}) {
  const { row, current } = await load(db, tenantId, tariffId);
  const deleted = await db.tariff.update({
    where: { id: row.id },
    data: { deletedAt: new Date(), externalReference: null },
  });
  return {
    ...presentTariff({ ...row, updatedAt: deleted.updatedAt }, current, version),
    deleted: true as const,
  };
}

export { load as loadTariff };
