import crypto from "node:crypto";

/**
 * Written first in a raw statement's text (`$queryRaw`/`$executeRaw` through our clients, `newDb`):
 * the statement is prepared once per connection and run by name afterwards, so PostgreSQL parses
 * and plans it once per connection, not on every run. For the batch writers' large statements,
 * which run many times a second and whose parsing and planning were among PostgreSQL's top
 * functions (bench/README.md, "100,000 at once"). Only a statement whose text never changes
 * (values in parameters, lists as arrays, no `Prisma.join` of a varying length) may carry it:
 * each distinct text stays prepared on each connection for the connection's life.
 */
export const PREPARED = "/* prepared */";

const MARKED = /^\s*\/\* prepared \*\//;

/**
 * The name a statement is prepared under (a hash of its text), or undefined for an unmarked one,
 * which node-postgres sends unnamed, parsed and planned every time (the adapter's
 * `statementNameGenerator`).
 */
export function preparedName(sql: string): string | undefined {
  if (!MARKED.test(sql)) return undefined;
  return `p_${crypto.createHash("sha1").update(sql).digest("base64url")}`;
}
