import { isIP } from "node:net";
import { z } from "zod";

/** Loopback, IPv4 and IPv6: what http_check may reach unless the operator lists more. */
export const HTTP_CHECK_DEFAULT_ALLOW = ["127.0.0.0/8", "::1/128"] as const;

/** An IPv4 or IPv6 network as `address/prefix` (a bare address is one host), or undefined. */
export function parseCidr(s: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefixText, extra] = s.trim().split("/");
  const v = isIP(address);
  if (v === 0 || extra !== undefined) return undefined;
  const max = v === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix <= max ? { address, prefix, family: v === 4 ? "ipv4" : "ipv6" } : undefined;
}

/** The variable of http_check's address policy (merged into the config's schema). */
export const HTTP_CHECK_ENV = {
  /**
   * The networks http_check may connect to, comma-separated CIDRs (default loopback). Link-local
   * (169.254.0.0/16, cloud metadata; fe80::/10) is refused whatever this lists.
   */
  SVC_HTTP_CHECK_ALLOW: z
    .string()
    .default(HTTP_CHECK_DEFAULT_ALLOW.join(","))
    .refine((v) => v.split(",").every((c) => parseCidr(c) !== undefined), { message: "a comma-separated list of IPv4 or IPv6 networks (address/prefix)" }),
};

/** Where the http_check operator may connect. */
export interface HttpCheckSettings {
  /** Networks (address/prefix) a URL's address, and every redirect's, must be in. */
  readonly allow: readonly string[];
}

export function httpCheckOf(e: { SVC_HTTP_CHECK_ALLOW: string }): HttpCheckSettings {
  return { allow: e.SVC_HTTP_CHECK_ALLOW.split(",").map((c) => c.trim()) };
}
