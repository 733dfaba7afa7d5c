import type { Operator } from "../types";
import { sleep } from "./abortable-sleep";
import { addressPolicy } from "../address-policy";
import { AddressRefusedError, checkedRequest } from "../checked-http";
import { args, type Args } from "./http-check-args";

/** How many redirects a check follows (each one's address checked again). */
const MAX_REDIRECTS = 5;

/**
 * Check that a URL answers with the expected status (and text); output status and attempts. The
 * URL and every redirect must reach an address in SVC_HTTP_CHECK_ALLOW (default loopback), never
 * a link-local one (cloud metadata): a refusal fails the task at once, with nothing sent there.
 */
export function createHttpCheckOperator(): Operator<Args> {
  return {
    name: "http_check",
    description: "HTTP(S) check: URL answers with the expected status (and optional text) within a timeout; retries optional",
    args,
    async run(a, ctx) {
      const want = Array.isArray(a.expected_status) ? a.expected_status : [a.expected_status];
      const policy = addressPolicy(ctx.config.httpCheck.allow);
      let problem = "";
      for (let attempt = 1; attempt <= a.retries + 1; attempt++) {
        if (attempt > 1) await sleep(a.retry_interval_s * 1000, ctx.signal);
        const timeout = AbortSignal.timeout(a.timeout_s * 1000);
        try {
          const r = await checkedRequest(a.url, {
            method: a.method,
            policy,
            signal: AbortSignal.any([ctx.signal, timeout]),
            maxRedirects: MAX_REDIRECTS,
            onRedirect: (to, status) => ctx.log(`${status}: redirected to ${to}`, "system"),
          });
          if (!want.includes(r.status)) problem = `${a.method} ${a.url} returned ${r.status}, expected ${want.join(" or ")}`;
          else if (a.contains !== undefined && !r.body.includes(a.contains))
            problem = `${a.method} ${a.url} returned ${r.status} but the body does not contain ${JSON.stringify(a.contains)}`;
          else {
            ctx.log(`${a.method} ${a.url} -> ${r.status}`, "system");
            return { url: a.url, status: r.status, attempts: attempt };
          }
        } catch (e) {
          if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
          if (e instanceof AddressRefusedError) throw e;
          const code = (e as { code?: string }).code;
          problem = `${a.method} ${a.url} failed: ${timeout.aborted ? `no answer within ${a.timeout_s} s` : (code ?? (e as Error).message)}`;
        }
        ctx.log(`attempt ${attempt}: ${problem}`, "system");
      }
      throw new Error(problem);
    },
  };
}
