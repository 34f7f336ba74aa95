import { currentUser } from "@/server/access/current-user";
import { asDomainError, executeRoute } from "@/server/http/execute";
import { ERROR_STATUS } from "@/server/http/errors";
import { diagnosticsFileRoute } from "@/server/http/routes/device-jobs";
import { consoleCall } from "@/server/trpc/route-input";

export const dynamic = "force-dynamic";

/**
 * The console's download of an uploaded diagnostics file: /v1's `downloadDiagnosticsFile` run as
 * the signed-in person (the same access and scopes as every console procedure,
 * server/trpc/README.md), answered as bytes, which a tRPC procedure cannot carry.
 */
export async function GET(
  _req: Request,
  { params }: { params: Promise<{ tenantId: string; stationId: string; jobId: string }> },
) {
  const p = await params;
  const caller = await currentUser();
  if (!caller)
    return Response.json(
      { error: { code: "unauthorized", message: "Sign in first.", details: {} } },
      { status: 401 },
    );
  const call = consoleCall(diagnosticsFileRoute, caller, {
    params: { tenant_id: p.tenantId, station_id: p.stationId, job_id: p.jobId },
  });
  try {
    const outcome = await executeRoute(diagnosticsFileRoute, call);
    return new Response(outcome.body as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: call.headers,
    });
  } catch (error) {
    const e = asDomainError(error, call);
    return Response.json(
      { error: { code: e.code, message: e.message, details: e.details } },
      { status: ERROR_STATUS[e.code] },
    );
  }
}
