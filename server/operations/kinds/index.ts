import type { OperationKind } from "./kind";

/**
 * Every kind of charger operation, by scope: the registry the domains add their kinds to
 * (`server/domains.ts`, which every process imports before it creates, dispatches or settles an
 * operation). A new kind is one file (an `OperationKind`, in the domain it serves) and one line
 * there; creation, dispatch, the sweeps and completion need no change.
 */
let KINDS = new Map<string, OperationKind>();

/**
 * Sets the registry to these kinds, every domain's (`server/domains.ts` gives them all at once; a
 * second evaluation of it, as a bundler may make, sets the same ones again). A scope is served by
 * one kind: a second one for it is a bug.
 */
export function registerOperationKinds(kinds: readonly OperationKind[]) {
  const byScope = new Map<string, OperationKind>();
  for (const kind of kinds) {
    if (byScope.has(kind.scope))
      throw new Error(`Two operation kinds are registered for scope "${kind.scope}".`);
    byScope.set(kind.scope, kind);
  }
  KINDS = byScope;
}

/** The registry, refusing to be read before any kind was registered (server/domains.ts). */
function kinds(): ReadonlyMap<string, OperationKind> {
  if (!KINDS.size)
    throw new Error(
      "No operation kinds are registered: the process must import server/domains.ts.",
    );
  return KINDS;
}

/** The kind for `scope`. Throws for a scope no kind serves: that is a bug, never a charger's doing. */
export function operationKind(scope: string): OperationKind {
  const kind = kinds().get(scope);
  if (!kind) throw new Error(`No operation kind is registered for scope "${scope}".`);
  return kind;
}

/** The kind for `scope`, or undefined for operations no charger is involved in (station.update). */
export function findOperationKind(scope: string): OperationKind | undefined {
  return kinds().get(scope);
}
