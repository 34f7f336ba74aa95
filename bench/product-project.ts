import type { Product } from "../e2e/fixtures/product";
import { useDatabaseUrl } from "../server/db";
import { startEmbeddedDatabase } from "../server/db/embedded";

/**
 * A project in a product started by `startProduct`, made as an operator's first one is (`npm run
 * admin -- bootstrap`), and this process's `db()` pointed at the product's own database (its
 * running embedded server), where a benchmark puts what it needs in bulk. Returns what bootstrap
 * printed (`tenant_id`, `user_id`, `api_key`).
 */
export async function bootstrapProject(product: Product, project: string) {
  const boot = product.admin([
    "bootstrap",
    "--email",
    "bench@example.com",
    "--team",
    "Bench",
    "--project",
    project,
  ]) as {
    tenant_id: number;
    user_id: number;
    api_key: { id: string; secret: string };
  };
  useDatabaseUrl(
    (await startEmbeddedDatabase({ dataDir: product.dataDir, reuseRunning: true })).url,
  );
  return boot;
}
