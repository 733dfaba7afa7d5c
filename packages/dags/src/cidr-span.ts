import { cidrAddresses } from "./cidr";
import type { CidrSpan, ParamRole } from "./types";

/**
 * The networks of `value` (a CIDR or an array of them) that together hold more addresses of one
 * family than a network of the span's prefix length (IPv4 past a /8, IPv6 past a /32): the widest
 * first, as many as it takes to pass the bound, so "0.0.0.0/1 and 128.0.0.0/1" cannot open what
 * "0.0.0.0/0" opens only to its role. Null when the value stays within both bounds.
 */
export function cidrSpanExceeded(span: CidrSpan, value: unknown): { role: ParamRole; values: string[]; why: string } | null {
  const list = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
  for (const family of [4, 6] as const) {
    const bound = span[family === 4 ? "ipv4" : "ipv6"];
    if (bound === undefined) continue;
    const limit = 1n << BigInt((family === 4 ? 32 : 128) - bound);
    const nets = list
      .map((c) => ({ c, a: cidrAddresses(c) }))
      .filter((x) => x.a?.family === family)
      .sort((x, y) => (x.a!.count > y.a!.count ? -1 : x.a!.count < y.a!.count ? 1 : 0));
    let sum = 0n;
    const values: string[] = [];
    for (const n of nets) {
      sum += n.a!.count;
      values.push(n.c);
      if (sum > limit) return { role: span.role, values, why: `more IPv${family} addresses than a /${bound}` };
    }
  }
  return null;
}
