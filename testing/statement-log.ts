import pg from "pg";
import { afterAll, beforeAll } from "vitest";

/**
 * Every statement each pg client sends in this process (a gateway run in the test's own
 * process), in order, from the file's start to its end: a transaction is the run of one client's
 * statements from a BEGIN to its COMMIT. Call once at a test file's top level.
 */
export function logStatements() {
  const sent = new Map<pg.Client, string[]>();
  /** the statements (as logged) that went by name: prepared once per connection (`PREPARED`) */
  const named = new Set<string>();
  const query = Reflect.get(pg.Client.prototype, "query") as (...args: unknown[]) => unknown;
  beforeAll(() => {
    Reflect.set(pg.Client.prototype, "query", function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text?: string; name?: string };
      // logged without the `PREPARED` mark, which is not part of the statement
      const text = (typeof q === "string" ? q : (q.text ?? ""))
        .replace(/\s+/g, " ")
        .replace(/^ ?\/\* prepared \*\/ ?/, "")
        .trim();
      if (typeof q !== "string" && q.name) named.add(text);
      if (!sent.has(this)) sent.set(this, []);
      sent.get(this)!.push(text);
      return query.apply(this, args);
    });
  });
  afterAll(() => {
    Reflect.set(pg.Client.prototype, "query", query);
  });
  return {
    /** each client's statements so far (`clear()` it to count from a moment on) */
    sent,
    named,
    /** the transactions (BEGIN to COMMIT) whose statements include one matching `pattern` */
    transactionsWith: (pattern: RegExp): string[][] => {
      const found: string[][] = [];
      for (const statements of sent.values()) {
        let current: string[] | null = null;
        for (const s of statements) {
          if (s === "BEGIN") current = [s];
          else if (current) {
            current.push(s);
            if (s === "COMMIT" || s === "ROLLBACK") {
              if (current.some((x) => pattern.test(x))) found.push(current);
              current = null;
            }
          }
        }
      }
      return found;
    },
  };
}
