import http from "node:http";
import https from "node:https";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { NonRetryableError } from "@svc/errors";
import type { AddressPolicy } from "./address-policy";

/** A URL, or a redirect, went to an address the policy refuses; nothing was sent there. */
export class AddressRefusedError extends NonRetryableError {}

/** The answer a checked request ended with (after its redirects). */
export interface CheckedResponse {
  status: number;
  body: string;
  /** The URL that answered (the last redirect's). */
  url: string;
}

export interface CheckedRequestOptions {
  method: "GET" | "HEAD";
  policy: AddressPolicy;
  signal: AbortSignal;
  maxRedirects: number;
  /** Called with each redirect's target before it is followed. */
  onRedirect?: (to: string, status: number) => void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET or HEAD `url`, following up to maxRedirects redirects. Every hop's address is checked before
 * anything is sent: an IP in the URL as it is; a name is resolved here and the connection goes to
 * the checked address (Host and TLS name stay the URL's), so a second DNS answer cannot swap it.
 */
export async function checkedRequest(url: string, o: CheckedRequestOptions): Promise<CheckedResponse> {
  let current = new URL(url);
  let from: string | undefined;
  for (let hop = 0; ; hop++) {
    const address = await addressOf(current, o.policy, from);
    const r = await requestOnce(current, address, o.method, o.signal);
    const location = r.location;
    if (!REDIRECTS.has(r.status) || location === undefined) return { status: r.status, body: r.body, url: current.href };
    if (hop >= o.maxRedirects) throw new Error(`${o.method} ${url} was still redirected after ${o.maxRedirects} redirects`);
    const next = new URL(location, current);
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new AddressRefusedError(`${current.href} redirects to a ${next.protocol} URL: only http and https are followed`);
    o.onRedirect?.(next.href, r.status);
    from = current.href;
    current = next;
  }
}

async function addressOf(url: URL, policy: AddressPolicy, from: string | undefined): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const refused = (why: string) => new AddressRefusedError(`http_check may not reach ${url.host}${from ? ` (the redirect of ${from})` : ""}: ${why}`);
  const literal = isIP(host);
  if (literal) {
    const why = policy.refusal(host);
    if (why) throw refused(why);
    return { address: host, family: literal as 4 | 6 };
  }
  const found = await lookup(host, { all: true, verbatim: true });
  const ok = found.find((a) => policy.refusal(a.address) === undefined);
  if (ok) return { address: ok.address, family: ok.family as 4 | 6 };
  throw refused(`${host} resolves to ${found.map((a) => policy.refusal(a.address)).join("; ")}`);
}

function requestOnce(url: URL, to: { address: string; family: 4 | 6 }, method: string, signal: AbortSignal): Promise<{ status: number; body: string; location?: string }> {
  const tls = url.protocol === "https:";
  const name = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise((resolve, reject) => {
    const req = (tls ? https : http).request(
      {
        // An IP: node connects to it as given, with no lookup of its own.
        host: to.address,
        family: to.family,
        port: url.port || (tls ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method,
        headers: { host: url.host, "user-agent": "svc-http-check", accept: "*/*" },
        ...(tls && !isIP(name) ? { servername: name } : {}),
        agent: false,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = REDIRECTS.has(status) ? res.headers.location : undefined;
        if (location !== undefined || method === "HEAD") {
          res.resume();
          res.on("end", () => resolve({ status, body: "", ...(location !== undefined ? { location } : {}) }));
          res.on("error", reject);
          return;
        }
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
