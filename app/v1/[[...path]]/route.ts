import { handleV1 } from "@/server/http/routes";

// Only the request: Next's second argument (route params) must not reach the router.
const handle = (req: Request) => handleV1(req);

// Every /v1 request goes through one router (server/http/router.ts), so unknown routes, wrong
// methods and every error share the same answers, and the OpenAPI document lists every route.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = handle;
export const HEAD = handle;
export const POST = handle;
export const PUT = handle;
export const PATCH = handle;
export const DELETE = handle;
export const OPTIONS = handle;
