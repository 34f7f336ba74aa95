import { handleLogin } from "@/server/http/oidc-interaction";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ uid: string }> }) {
  return handleLogin(request, (await params).uid);
}
