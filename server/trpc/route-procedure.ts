import type { UserCaller } from "../access/caller";
import { asDomainError, executeRoute } from "../http/execute";
import { resourceRoutes, type ResourceRoute } from "../http/routes";
import { consoleError, protectedProcedure } from "./init";
import {
  consoleCall,
  routeInputSchema,
  type ConsoleEnvelope,
  type RouteOutput,
} from "./route-input";

type Named<Id extends string> = Extract<ResourceRoute, { operationId: Id }>;

function routeNamed<Id extends ResourceRoute["operationId"]>(id: Id): Named<Id> {
  const def = resourceRoutes.find((r): r is Named<Id> => r.operationId === id);
  if (!def) throw new Error(`no /v1 operation ${id}`);
  return def;
}

/**
 * Runs one /v1 route in-process as the signed-in person through `executeRoute`, the core /v1
 * runs too (tenant access, role scopes, parsing, idempotency, the service, its presenter,
 * `afterCommit`), and returns its body as the route's response schema types it. That type holds
 * because every /v1 answer in the test suite is parsed with the same schema
 * (testing/api.ts).
 */
async function runRoute<R extends ResourceRoute>(
  def: R,
  caller: UserCaller,
  input: ConsoleEnvelope,
): Promise<RouteOutput<R>> {
  const call = consoleCall(def, caller, input);
  try {
    const outcome = await executeRoute(def, call);
    return outcome.body as RouteOutput<R>;
  } catch (error) {
    throw consoleError(asDomainError(error, call));
  }
}

/**
 * A read: the tRPC query of the /v1 route named `id`, its input the route's params and query, its
 * output the route's response. Only the signed-in may call it.
 */
export const read = <Id extends ResourceRoute["operationId"]>(id: Id) => {
  const def = routeNamed(id);
  return protectedProcedure
    .input(routeInputSchema<Named<Id>>())
    .query(({ ctx, input }) => runRoute(def, ctx.caller, input));
};

/** A change: the tRPC mutation of the /v1 route named `id`, with its body and Idempotency-Key. */
export const change = <Id extends ResourceRoute["operationId"]>(id: Id) => {
  const def = routeNamed(id);
  return protectedProcedure
    .input(routeInputSchema<Named<Id>>())
    .mutation(({ ctx, input }) => runRoute(def, ctx.caller, input));
};
