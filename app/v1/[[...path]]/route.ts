import { handleV1 } from "@/server/http/routes";

// Every /v1 request goes through one router (server/http/router.ts), so unknown routes, wrong
// methods and every error share the same answers, and the OpenAPI document lists every route.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = handleV1;
export const HEAD = handleV1;
export const POST = handleV1;
export const PUT = handleV1;
export const PATCH = handleV1;
export const DELETE = handleV1;
export const OPTIONS = handleV1;
