import { BlockList, isIP } from "node:net";
import { parseCidr } from "@svc/config";

/** Link-local, where clouds answer metadata requests (169.254.169.254): never reachable. */
const LINK_LOCAL = [
  { address: "169.254.0.0", prefix: 16, family: "ipv4" },
  { address: "fe80::", prefix: 10, family: "ipv6" },
] as const;

/** Which addresses an outgoing check may connect to. */
export interface AddressPolicy {
  /** Why `address` (an IP) may not be reached, or undefined when it may. */
  refusal(address: string): string | undefined;
}

/**
 * The policy of `allow` (CIDRs, SVC_HTTP_CHECK_ALLOW): an address must be in one of them and not
 * link-local (IPv4-mapped IPv6 addresses count as their IPv4 address, as node's BlockList does).
 */
export function addressPolicy(allow: readonly string[]): AddressPolicy {
  const allowed = new BlockList();
  for (const c of allow) {
    const n = parseCidr(c);
    if (!n) throw new TypeError(`not a network: ${JSON.stringify(c)}`);
    allowed.addSubnet(n.address, n.prefix, n.family);
  }
  const linkLocal = new BlockList();
  for (const n of LINK_LOCAL) linkLocal.addSubnet(n.address, n.prefix, n.family);
  const list = allow.join(", ");
  return {
    refusal(address) {
      const v = isIP(address);
      if (v === 0) return `${JSON.stringify(address)} is not an IP address`;
      const family = v === 4 ? "ipv4" : "ipv6";
      if (linkLocal.check(address, family)) return `${address} is link-local (cloud metadata lives there): always refused`;
      if (!allowed.check(address, family)) return `${address} is not in the networks SVC_HTTP_CHECK_ALLOW lets it reach (${list})`;
      return undefined;
    },
  };
}
