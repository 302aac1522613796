// Which IP addresses are private to this network: loopback, RFC 1918, carrier-grade NAT, link-local (cloud
// metadata at 169.254.169.254), unique-local IPv6, multicast and reserved ranges. IPv4-mapped IPv6 addresses
// (`::ffff:10.0.0.1`, `::ffff:a00:1`) are judged as the IPv4 address they carry; anything that is not an IP
// address at all counts as private, so a caller that cannot tell never connects.
import net from "node:net";

const blocked = new net.BlockList();
for (const [addr, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24],
  ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(addr, prefix, "ipv4");
for (const [addr, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["64:ff9b::", 96]] as const) {
  blocked.addSubnet(addr, prefix, "ipv6");
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (dotted) return blocked.check(dotted[1]!, "ipv4");
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (hex) {
      const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
      return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, "ipv4");
    }
    return blocked.check(address, "ipv6");
  }
  return true;
}

export const isPublicAddress = (address: string) => !isPrivateAddress(address);

/** A URL's host as written, without IPv6 brackets, lower-case: what a private-host policy is asked about. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
