import type { OperationKind } from "./kind";

/**
 * Every kind of charger operation, by scope: the registry the domains add their kinds to
 * (`server/domains.ts`, which every process imports before it creates, dispatches or settles an
 * operation). A new kind is one file (an `OperationKind`, in the domain it serves) and one line
 * there; creation, dispatch, the sweeps and completion need no change.
 */
const KINDS = new Map<string, OperationKind>();

/** Adds kinds to the registry. A scope is served by one kind: a second one for it is a bug. */
export function registerOperationKinds(kinds: readonly OperationKind[]) {
  for (const kind of kinds) {
    const known = KINDS.get(kind.scope);
    if (known && known !== kind)
      throw new Error(`Two operation kinds are registered for scope "${kind.scope}".`);
    KINDS.set(kind.scope, kind);
  }
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
