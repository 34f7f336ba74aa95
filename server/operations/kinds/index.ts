import { billCap } from "./bill-cap";
import { billCostUpdate } from "./bill-cost-update";
import { billStart } from "./bill-start";
import { externalStart } from "./external-start";
import { externalStop } from "./external-stop";
import type { OperationKind } from "./kind";
import { stationCommand } from "./station-command";
import { stationCredentials } from "./station-credentials";

/**
 * Every kind of charger operation, by scope. A new kind is one file (an `OperationKind`) and one
 * line here; creation, dispatch, the sweeps and completion need no change.
 */
const KINDS: Record<string, OperationKind> = Object.fromEntries(
  [
    stationCommand,
    stationCredentials,
    billStart,
    billCostUpdate,
    billCap,
    externalStart,
    externalStop,
  ].map((kind) => [kind.scope, kind]),
);

/** The kind for `scope`. Throws for a scope no kind serves: that is a bug, never a charger's doing. */
export function operationKind(scope: string): OperationKind {
  const kind = Object.hasOwn(KINDS, scope) ? KINDS[scope] : undefined;
  if (!kind) throw new Error(`No operation kind is registered for scope "${scope}".`);
  return kind;
}

/** The kind for `scope`, or undefined for operations no charger is involved in (station.update). */
export function findOperationKind(scope: string): OperationKind | undefined {
  return Object.hasOwn(KINDS, scope) ? KINDS[scope] : undefined;
}
