import { describe, expect, it, vi } from "vitest";
import { POST as startSignInRoute } from "@/app/sign-in/start/route";
import { handlers } from "./next-auth";

// A loopback address as the public one (a laptop install reached at 127.0.0.1): Next.js's own
// request class would rename it "localhost", which is another origin to the browser.
const BASE = vi.hoisted(() => (process.env.PUBLIC_BASE_URL = "http://127.0.0.1:3000"));

describe("sign-in with PUBLIC_BASE_URL at 127.0.0.1", () => {
  it("keeps 127.0.0.1 in Auth.js's callback address and in the authorization request", async () => {
    const providers = await handlers.GET(new Request("http://localhost:3000/api/auth/providers"));
    expect(await providers.json()).toMatchObject({
      oidc: { callbackUrl: `${BASE}/api/auth/callback/oidc` },
    });

    const start = await startSignInRoute(
      new Request("http://localhost:3000/sign-in/start", {
        method: "POST",
        headers: { host: "127.0.0.1:3000", origin: BASE },
        body: new URLSearchParams({ screen: "signin" }),
      }),
    );
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get("location")!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${BASE}/oidc/auth`);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${BASE}/api/auth/callback/oidc`);
  });
});
