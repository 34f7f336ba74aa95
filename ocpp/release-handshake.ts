/** What ocpp-rpc keeps of a connection's upgrade request for the socket's whole life. */
export type KeptHandshake = {
  request?: unknown;
  headers?: unknown;
  query?: unknown;
  password?: Buffer;
};

/**
 * Lets go of the upgrade request once the connection is up: ocpp-rpc's server client keeps the
 * handshake object for the socket's life (its `handshake` getter), and with it the HTTP request
 * (headers, raw headers, the parsed URL) and the charger's password. The password is a slice of
 * Node's shared 8 KiB buffer pool, so holding it kept a whole slab per few connections alive: with
 * the request, about 4 KiB per held connection (bench/README.md, connection-memory). Nothing reads
 * them after the upgrade; the identity, protocol and session stay on the client. Not keeping a
 * charger's password in memory longer than its check is also simply better.
 */
export function releaseHandshake(handshake: KeptHandshake | undefined) {
  if (!handshake) return;
  handshake.request = undefined;
  handshake.headers = undefined;
  handshake.query = undefined;
  handshake.password = undefined;
}
