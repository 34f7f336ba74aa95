/**
 * The address a request came from, for per-address limits. `next start` fills `X-Forwarded-For`
 * with the socket's address only when the header is absent, and a reverse proxy appends the address
 * it saw; so the last entry is the one written by the hop nearest to us, and entries to its left are
 * whatever the client claimed. Taking the last entry is right behind one proxy and with none; a
 * service exposed without a proxy still lets a client name its own address, which is why per-email
 * limits, not this, guard passwords. "unknown" when there is no header.
 */
export function clientAddress(request: Request): string {
  const entries = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  return entries.at(-1) ?? "unknown";
}
