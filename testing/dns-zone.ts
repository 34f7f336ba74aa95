import dns2 from "dns2";

const { Packet } = dns2;

/** The records a name holds in the test's zone. */
export type ZoneRecords = { A?: string; CNAME?: string; TXT?: string[] };

/**
 * A local DNS server (dns2, over UDP on a loopback port) answering from a zone the test edits as
 * it goes: the service's resolver (OCPP_DOMAINS_DNS_SERVER, or a `dnsResolver(server)`) and
 * pebble (`-dnsserver`) ask it. An A question for a name with a CNAME is answered with the CNAME
 * and the target's A, as a recursive resolver would; a name the zone lacks is NXDOMAIN. `port`:
 * listen on this one (the e2e product is told it before the spec starts the zone), else any.
 */
export async function aDnsZone(options: { port?: number } = {}) {
  const zone = new Map<string, ZoneRecords>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (!question) return void send(response);
      const name = question.name.toLowerCase().replace(/\.$/, "");
      const records = zone.get(name);
      if (!records) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
        return void send(response);
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
      // dns2 encodes plain records (its README's way); its types ask for decoded Resources
      const answer = (record: Record<string, unknown>) =>
        response.answers.push(record as unknown as (typeof response.answers)[number]);
      if (question.type === Packet.TYPE.TXT)
        for (const data of records.TXT ?? []) answer({ ...base, type: Packet.TYPE.TXT, data });
      if (question.type === Packet.TYPE.CNAME && records.CNAME)
        answer({ ...base, type: Packet.TYPE.CNAME, domain: records.CNAME });
      if (question.type === Packet.TYPE.A) {
        if (records.A) answer({ ...base, type: Packet.TYPE.A, address: records.A });
        else if (records.CNAME) {
          answer({ ...base, type: Packet.TYPE.CNAME, domain: records.CNAME });
          const target = zone.get(records.CNAME);
          if (target?.A)
            answer({
              ...base,
              name: records.CNAME,
              type: Packet.TYPE.A,
              address: target.A,
            });
        }
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: options.port ?? 0, address: "127.0.0.1" } });
  const port = addresses.udp?.port;
  if (!port) throw new Error("the DNS server did not listen");
  return {
    /** host:port, for the service's resolver and pebble's -dnsserver */
    server: `127.0.0.1:${port}`,
    set: (name: string, records: ZoneRecords) => zone.set(name.toLowerCase(), records),
    remove: (name: string) => zone.delete(name.toLowerCase()),
    close: () => server.close(),
  };
}
