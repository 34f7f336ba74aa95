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
 * The process's marked texts and their names: a few dozen, one per statement site. On
 * `globalThis`: the web process holds the server modules twice (Next.js's bundle and
 * scripts/web-v1.ts's) over one pool, and a name must mean one text on a connection.
 */
const global = globalThis as unknown as { __preparedNames?: Map<string, string> };
const names = (global.__preparedNames ??= new Map<string, string>());

/**
 * The name a statement is prepared under (one per distinct text in this process), or undefined
 * for an unmarked one, which node-postgres sends unnamed, parsed and planned every time (the
 * adapter's `statementNameGenerator`).
 */
export function preparedName(sql: string): string | undefined {
  if (!MARKED.test(sql)) return undefined;
  let name = names.get(sql);
  if (name === undefined) names.set(sql, (name = `p_${names.size + 1}`));
  return name;
}
