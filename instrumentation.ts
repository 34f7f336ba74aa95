/**
 * Next.js calls `register` once as the web process starts (not during `next build`, where there is
 * no database to open): it opens the database connections ahead of the first requests.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build")
    return;
  if (!process.env.DATABASE_URL) return;
  const { warmUp } = await import("./server/warm-up");
  void warmUp();
}
