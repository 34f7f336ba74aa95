import { metrics } from "../metrics/registry";

/** The route template each /v1 request matched, noted by the router as it matches. */
const routes = new WeakMap<Request, string>();

/** Notes the route template `request` matched (undefined: none), for its latency's labels. */
export function noteV1Route(request: Request, template: string | undefined) {
  if (template) routes.set(request, template);
}

/**
 * The /v1 handler, timed: each answer observes `chargecloud_v1_request_duration_seconds` under
 * its method, its route's template (never the raw path, whose IDs would make a series per
 * resource) and its status. The router answers every request itself (errors included), so each
 * request is observed once.
 */
export function meteredV1(
  handle: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const started = performance.now();
    const response = await handle(request);
    metrics().v1RequestDuration.observe(
      {
        method: request.method.toUpperCase(),
        route: routes.get(request) ?? "unmatched",
        status: String(response.status),
      },
      (performance.now() - started) / 1000,
    );
    return response;
  };
}
