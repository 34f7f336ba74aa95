import net from "node:net";

/**
 * Which resolved addresses a webhook may connect to (spec section 6, delivery contract item 8).
 * Each family is judged against its own ranges, as a 32- or 128-bit number. (Node's BlockList is
 * not used: it also matches an IPv4 address against IPv6 rules through its IPv4-mapped form, so a
 * rule for ::ffff:0:0/96 refused every IPv4 address.)
 */
export function isPublicAddress(address: string): boolean {
  // A zone index ("fe80::1%eth0") only exists for link-local and multicast scopes.
  if (address.includes("%")) return false;
  if (net.isIPv4(address)) return isPublicV4(v4Value(address));
  if (net.isIPv6(address)) return isPublicV6(v6Value(address));
  return false; // not an address at all
}

type Range = { base: bigint; bits: number; width: 32n | 128n };

/** IANA's special-purpose IPv4 ranges (RFC 6890 and successors): none is a public host. */
const NON_PUBLIC_V4 = [
  "0.0.0.0/8", // "this network"; 0.0.0.0 reaches the local host on Linux
  "10.0.0.0/8", // private (RFC 1918)
  "100.64.0.0/10", // carrier-grade NAT, shared address space
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, including cloud metadata services at 169.254.169.254
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation
  "192.88.99.0/24", // the former 6to4 relay anycast
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation
  "203.0.113.0/24", // documentation
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, and the broadcast address 255.255.255.255
].map(range);

/** Forms whose destination is really an IPv4 address: judged by that address. */
const MAPPED = range("::ffff:0:0/96"); // the socket connects over IPv4 to the last 32 bits
const NAT64 = range("64:ff9b::/96"); // a NAT64 gateway forwards to the last 32 bits (RFC 6052)
const SIX_TO_FOUR = range("2002::/16"); // relayed to the IPv4 in bits 16..47 (RFC 3056)

/**
 * Only global unicast reaches the internet. Outside it lie ::, ::1, IPv4-compatible ::/96
 * (deprecated by RFC 4291, and tunnelled to the embedded IPv4 by some stacks: refused whatever it
 * embeds), 100::/64 (discard), local-use NAT64 64:ff9b:1::/48, fc00::/7, fe80::/10, fec0::/10,
 * ff00::/8 and unassigned space: all refused.
 */
const GLOBAL_UNICAST = range("2000::/3");

/** Special-purpose ranges inside global unicast. */
const NON_PUBLIC_V6 = [
  // Teredo: the client's IPv4 is obfuscated inside and the path runs through relays; not a
  // destination a webhook receiver has.
  "2001::/32",
  "2001:2::/48", // benchmarking
  "2001:10::/28", // ORCHID (deprecated): identifiers, not locators
  "2001:20::/28", // ORCHIDv2: identifiers, not locators
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation (RFC 9637)
].map(range);

function isPublicV4(address: bigint): boolean {
  return !NON_PUBLIC_V4.some((r) => within(address, r));
}

function isPublicV6(address: bigint): boolean {
  if (within(address, MAPPED) || within(address, NAT64)) return isPublicV4(address & 0xffff_ffffn);
  // Decision: a 6to4 address is judged by the IPv4 it is relayed to, like the forms above.
  if (within(address, SIX_TO_FOUR)) return isPublicV4((address >> 80n) & 0xffff_ffffn);
  if (!within(address, GLOBAL_UNICAST)) return false;
  return !NON_PUBLIC_V6.some((r) => within(address, r));
}

function within(address: bigint, r: Range): boolean {
  const shift = r.width - BigInt(r.bits);
  return address >> shift === r.base >> shift;
}

function range(cidr: string): Range {
  const [prefix = "", bits = ""] = cidr.split("/");
  return net.isIPv4(prefix)
    ? { base: v4Value(prefix), bits: Number(bits), width: 32n }
    : { base: v6Value(prefix), bits: Number(bits), width: 128n };
}

/** For text net.isIPv4 accepts: four decimal octets. */
function v4Value(text: string): bigint {
  return text.split(".").reduce((value, octet) => (value << 8n) | BigInt(octet), 0n);
}

/** For text net.isIPv6 accepts, without a zone index. */
function v6Value(text: string): bigint {
  // A trailing dotted quad ("::ffff:127.0.0.1") stands for the last two groups.
  const quad = /\d+\.\d+\.\d+\.\d+$/.exec(text)?.[0];
  const v4 = quad ? v4Value(quad) : 0n;
  const hex = quad
    ? `${text.slice(0, -quad.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`
    : text;
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const [left, right] = hex.split("::");
  const head = groups(left);
  const tail = groups(right);
  // "::" stands for as many zero groups as make eight.
  const all = [...head, ...Array<string>(8 - head.length - tail.length).fill("0"), ...tail];
  return all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}
