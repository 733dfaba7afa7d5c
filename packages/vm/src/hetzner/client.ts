import { CloudApiError, CloudUnavailableError, waitUntil } from "../aws/errors";
import type { HourlyPrice } from "../types";

/** Hetzner Cloud objects, as far as the driver reads them (API reference: docs.hetzner.cloud). */
export interface HcAction {
  id: number;
  command: string;
  status: "running" | "success" | "error";
  progress: number;
  error: { code: string; message: string } | null;
}
export interface HcServer {
  id: number;
  name: string;
  status: string;
  created: string;
  labels: Record<string, string>;
  server_type: { name: string; cores: number; memory: number };
  image: { name: string | null; id: number } | null;
  public_net: { ipv4: { ip: string } | null; ipv6: { ip: string } | null };
  private_net: { ip: string }[];
  datacenter: { location: { name: string } };
}
export interface HcServerType {
  name: string;
  cores: number;
  memory: number;
  architecture: string;
  deprecated: boolean | null;
  prices: { location: string; price_hourly: { net: string; gross: string } }[];
}
/** The hourly price of server type `size` in `location`, from server_types: billed with VAT, net beside it; Hetzner bills in EUR. */
export function hetznerHourlyPrice(types: readonly HcServerType[], size: string, location: string): HourlyPrice | null {
  const p = types.find((t) => t.name === size)?.prices.find((x) => x.location === location)?.price_hourly;
  return p ? { amount: p.gross, net: p.net, currency: "EUR" } : null;
}
export interface HcSshKey {
  id: number;
  name: string;
  fingerprint: string;
  public_key: string;
}
export interface HcImage {
  id: number;
  name: string | null;
  type: string;
  status: string;
  architecture: string;
}

/** A small typed client of the Hetzner Cloud API over fetch: Bearer token, JSON, 429 backoff until RateLimit-Reset. */
export class HetznerClient {
  constructor(private readonly o: { token: string; endpoint?: string; maxWaitMs?: number; fetch?: typeof fetch; now?: () => number }) {}

  private get base(): string {
    return (this.o.endpoint ?? "https://api.hetzner.cloud/v1").replace(/\/+$/, "");
  }

  /** One request; on 429 waits until RateLimit-Reset (bounded) and tries again. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const f = this.o.fetch ?? fetch;
    const now = this.o.now ?? Date.now;
    const deadline = now() + (this.o.maxWaitMs ?? 120_000);
    for (;;) {
      let res: Response;
      try {
        res = await f(`${this.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.o.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (e) {
        // fetch's own message is "fetch failed"; the cause says why (ECONNREFUSED, a name not found, TLS).
        const cause = (e as { cause?: { message?: string } }).cause?.message;
        throw new CloudUnavailableError(`hetzner ${method} ${path}: ${(e as Error).message}${cause ? ` (${cause})` : ""}`);
      }
      const text = await res.text();
      const json = text ? (JSON.parse(text) as { error?: { code: string; message: string } }) : {};
      if (res.status === 429) {
        const reset = Number(res.headers.get("ratelimit-reset")) * 1000;
        const wait = Math.max(100, Number.isFinite(reset) && reset > 0 ? reset - now() : 1000);
        if (now() + wait > deadline) throw new CloudUnavailableError(`hetzner ${method} ${path}: rate_limit_exceeded until ${new Date(reset).toISOString()}`);
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      if (!res.ok) throw new CloudApiError(`hetzner ${method} ${path}: ${json.error?.code ?? res.status}: ${json.error?.message ?? res.statusText}`);
      return json as T;
    }
  }

  /** Every page of a list (`per_page` 50). */
  async all<T>(path: string, key: string): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; ; page++) {
      const sep = path.includes("?") ? "&" : "?";
      const r = await this.request<Record<string, unknown> & { meta?: { pagination?: { next_page: number | null } } }>("GET", `${path}${sep}page=${page}&per_page=50`);
      out.push(...((r[key] as T[] | undefined) ?? []));
      if (!r.meta?.pagination?.next_page) return out;
    }
  }

  /** Poll an action until it succeeds; its error is the provider's. */
  async waitAction(a: HcAction, o: { timeoutMs: number; pollMs: number; signal?: AbortSignal }): Promise<HcAction> {
    const done = await waitUntil(
      async () => {
        const cur = a.status === "running" ? (await this.request<{ action: HcAction }>("GET", `/actions/${a.id}`)).action : a;
        a = cur;
        return cur.status === "running" ? undefined : cur;
      },
      { what: `hetzner action ${a.id} (${a.command})`, ...o },
    );
    if (done.status === "error") throw new CloudApiError(`hetzner action ${done.command}: ${done.error?.code}: ${done.error?.message}`);
    return done;
  }
}
