/** True when a Prisma or pg error is a unique-constraint violation (optionally on a given column). */
export function isUniqueViolation(error: unknown, column?: string): boolean {
  const e = error as {
    code?: string;
    meta?: Record<string, unknown>;
    message?: string;
    cause?: unknown;
  };
  const isUnique = e?.code === "P2002" || e?.code === "23505";
  if (!isUnique) return false;
  if (!column) return true;
  return JSON.stringify({ meta: e.meta ?? null, message: e.message ?? "" }).includes(column);
}
