// Which IP addresses are private to this network: loopback, RFC 1918, carrier-grade NAT, link-local (cloud
// metadata at 169.254.169.254), unique-local and site-local IPv6, multicast and reserved ranges. IPv6 addresses
// that carry an IPv4 address (mapped `::ffff:10.0.0.1`, translated, compatible `::7f00:1`, NAT64, 6to4) are
// judged as the IPv4 address they carry; anything that is not an IP address at all counts as private, so a
// caller that cannot tell never connects.
import net from "node:net";

const blocked = new net.BlockList();
for (const [addr, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24],
  ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(addr, prefix, "ipv4");
for (const [addr, prefix] of [
  ["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8],
  // Local-use NAT64 (RFC 8215), discard-only (RFC 6666), documentation, Teredo (its IPv4 is obfuscated: never judged).
  ["64:ff9b:1::", 48], ["100::", 64], ["2001:db8::", 32], ["2001::", 32],
] as const) {
  blocked.addSubnet(addr, prefix, "ipv6");
}

/** The 16 bytes of an IPv6 address (already known to be one), a dotted IPv4 tail included. */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const groups = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.flatMap((g) => {
    const v = parseInt(g, 16);
    return [v >> 8, v & 255];
  });
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, the old IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` and 6to4
 * `2002:aabb:ccdd::`. Null for any other address.
 */
export function embeddedIpv4(address: string): string | null {
  if (net.isIP(address) !== 6) return null;
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const quad = (at: number) => b.slice(at, at + 4).join(".");
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12); // ::ffff:0:0/96
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return quad(12); // ::ffff:0:0:0/96
  if (zeros(0, 12) && !zeros(12, 14)) return quad(12); // ::/96, except :: and ::1 (judged as IPv6)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return quad(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2); // 2002::/16
  return null;
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return blocked.check(v4, "ipv4");
    return blocked.check(address.replace(/%.*$/, ""), "ipv6");
  }
  return true;
}

export const isPublicAddress = (address: string) => !isPrivateAddress(address);

/** A URL's host as written, without IPv6 brackets, lower-case: what a private-host policy is asked about. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
