import type http from "node:http";
import type { FakeStripeState } from "./stripe-fake-state";

/**
 * The fake's stand-in for Stripe's hosted onboarding, for browsers (no API key): an Account Link's
 * URL shows a page with one button, "Finish onboarding", that submits the details Stripe asks for
 * and sends the person to the link's `return_url`. As Stripe documents it, a link works once and
 * until `expires_at`: a link already visited, expired or unknown redirects to its `refresh_url`
 * (or answers 404 when the fake never made it). Test code; what the owner types is not modelled.
 */
export type FakeAccountLink = {
  account: string;
  returnUrl: string;
  refreshUrl: string;
  expiresAt: number;
  visited: boolean;
};

export const ONBOARDING_PATH =
  /^\/setup\/s\/(acct_[A-Za-z0-9_]+)\/(link_[A-Za-z0-9_]+)(\/finish)?$/;

export function serveOnboarding(
  state: FakeStripeState,
  links: Map<string, FakeAccountLink>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
) {
  const [, account, linkId = "", finish] = ONBOARDING_PATH.exec(path) ?? [];
  const link = links.get(linkId);
  if (!link || link.account !== account) {
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end("No such onboarding link.");
  }
  const redirect = (to: string) => {
    res.writeHead(303, { location: to });
    res.end();
  };
  if (finish && req.method === "POST") {
    // the page's own form: the one visit this link allowed is this one
    state.updateAccount(link.account, {
      chargesEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    });
    return redirect(link.returnUrl);
  }
  if (req.method !== "GET" || link.visited || link.expiresAt * 1000 < Date.now()) {
    return redirect(link.refreshUrl);
  }
  link.visited = true;
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html lang="en"><head><title>Stripe onboarding (test fake)</title></head>
<body><main><h1>Set up payments for ${account}</h1>
<p>The Stripe test fake: finishing submits every detail Stripe asks for.</p>
<form method="post" action="${path}/finish"><button type="submit">Finish onboarding</button></form>
<p><a href="${link.refreshUrl}">Leave</a></p></main></body></html>`);
}
