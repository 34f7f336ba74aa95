// A route that does nothing, for the benchmark's baseline (bench/api-read.ts).
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json({ ok: true });
}
