import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { env } from "../env";
import { deviceFlowLimit } from "./device-flow";
import { oidcProvider } from "./oidc-provider";

/**
 * Serves the built-in provider under /oidc from a Next route handler: the Web Request becomes a
 * Node request for oidc-provider's Koa app and its Node response becomes a Web Response.
 * The provider builds its endpoint URLs from the request's host and scheme; they are those of
 * PUBLIC_BASE_URL whatever name the request arrived under, so discovery, redirects and token
 * audiences agree with the issuer and the console's registered redirect URIs.
 */
export async function handleOidc(request: Request): Promise<Response> {
  if (env().oidc.kind !== "builtin") {
    return new Response("The built-in identity provider is off: OIDC_ISSUER is configured.", {
      status: 404,
    });
  }
  const provider = await oidcProvider();
  const url = new URL(request.url);
  const full = url.pathname + url.search;
  const req = new IncomingMessage(new Socket());
  req.method = request.method;
  req.url = full.replace(/^\/oidc/, "") || "/";
  (req as IncomingMessage & { originalUrl?: string }).originalUrl = full;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  const publicUrl = new URL(env().publicBaseUrl);
  headers.host = publicUrl.host;
  headers["x-forwarded-host"] = publicUrl.host;
  headers["x-forwarded-proto"] = publicUrl.protocol.replace(":", "");
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : null;
  const limited = await deviceFlowLimit(
    request,
    url.pathname.replace(/^\/oidc/, ""),
    body,
    env().publicBaseUrl,
  );
  if (limited) return limited;
  // The body is whole here: describe it by length (body parsers look for a length or encoding).
  delete headers["transfer-encoding"];
  if (body?.length) headers["content-length"] = String(body.length);
  req.headers = headers;
  if (body?.length) req.push(body);
  req.push(null);

  const res = new ServerResponse(req);
  const chunks: Buffer[] = [];
  return new Promise<Response>((resolve, reject) => {
    res.write = ((chunk: string | Uint8Array) => {
      chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown) => {
      if (chunk && typeof chunk !== "function") {
        chunks.push(Buffer.from(chunk as string | Uint8Array));
      }
      const out = new Headers();
      for (const [name, value] of Object.entries(res.getHeaders())) {
        if (Array.isArray(value)) value.forEach((v) => out.append(name, v));
        else if (value !== undefined) out.set(name, String(value));
      }
      const status = res.statusCode;
      const noBody = status === 204 || status === 304 || request.method === "HEAD";
      resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers: out }));
      return res;
    }) as typeof res.end;
    Promise.resolve(provider.callback()(req, res)).catch(reject);
  });
}

/**
 * `fetch` for callers of the built-in provider in this process (Auth.js, sign-out): requests for
 * its issuer are answered in-process, so the server never needs to reach its own public address
 * (which it may not resolve, or only through the proxy in front of it). Other URLs go out.
 */
export const fetchOidc: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const { oidc } = env();
  const own = oidc.kind === "builtin" && request.url.startsWith(`${oidc.issuer}/`);
  return own ? handleOidc(request) : fetch(request);
};
