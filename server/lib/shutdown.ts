/**
 * Work a process must finish before it exits (the web process's API request counts), run by its
 * entry point's orderly stop (scripts/web-server.ts). On `globalThis`, and free of server-only
 * imports: the web process holds the server modules twice (Next.js's bundle, and the router
 * scripts/web-starting.ts loads), and its entry point imports neither.
 */
type Hook = () => Promise<void>;
const globalForHooks = globalThis as unknown as { __shutdownHooks?: Map<string, Hook> };

/** Registers `hook` under `name` (a second registration under the same name replaces it). */
export function onShutdown(name: string, hook: Hook) {
  (globalForHooks.__shutdownHooks ??= new Map()).set(name, hook);
}

/** Runs every hook at once; resolves when all have settled (a failing one is logged). */
export async function runShutdownHooks() {
  const hooks = [...(globalForHooks.__shutdownHooks?.values() ?? [])];
  const results = await Promise.allSettled(hooks.map((hook) => hook()));
  for (const result of results)
    if (result.status === "rejected") console.error("a shutdown hook failed:", result.reason);
}
