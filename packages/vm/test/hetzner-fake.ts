import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A fake of the Hetzner Cloud API (v1) for tests: Bearer auth, the documented object shapes,
// `{"error":{"code","message","details"}}` errors, label selectors (`k=v`, `k!=v`, `k`, `!k`),
// actions that run for one poll, and 429 rate_limit_exceeded with RateLimit-Limit/Remaining/Reset.
const LABEL_KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]{0,61}[a-z0-9A-Z])?$/;
const LABEL_VALUE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]{0,61}[a-z0-9A-Z])?)?$/;
const TYPES = [
  { id: 1, name: "cx23", cores: 2, memory: 4, disk: 40, architecture: "x86", deprecated: false },
  { id: 2, name: "cpx11", cores: 2, memory: 2, disk: 40, architecture: "x86", deprecated: false },
  { id: 3, name: "cx22", cores: 2, memory: 4, disk: 40, architecture: "x86", deprecated: true },
  { id: 4, name: "cax11", cores: 2, memory: 4, disk: 40, architecture: "arm", deprecated: false },
  { id: 5, name: "cpx21", cores: 3, memory: 4, disk: 80, architecture: "x86", deprecated: false },
].map((t) => ({
  ...t,
  description: t.name,
  prices: ["fsn1", "nbg1", "hel1"].map((location) => ({ location, price_hourly: { net: "0.0060", gross: "0.0071" }, price_monthly: { net: "3.79", gross: "4.51" } })),
}));
const IMAGES = ["debian-12", "debian-13", "ubuntu-24.04", "rocky-9"].map((name, i) => ({
  id: 100 + i,
  name,
  type: "system",
  status: "available",
  architecture: "x86",
  os_flavor: name.split("-")[0],
}));

/**
 * The real machines behind the fake's servers (a test's local VMs): booted at POST /servers with
 * the server's SSH keys for root (as Hetzner installs them; user data is not run), removed at
 * DELETE. The server's create and delete actions run until these finish.
 */
export interface ServerMachines {
  /** `ports`: the tcp/udp ports (22 aside) the server's firewalls open; the machine forwards them to 127.0.0.1. */
  boot(name: string, sshKeys: string[], ports: { proto: "tcp" | "udp"; port: number }[]): Promise<{ sshPort: number; forwards?: MachineForward[] }>;
  remove(name: string): Promise<void>;
}

/** A port of a backed server reached on 127.0.0.1 (the machine's forward). */
export interface MachineForward {
  proto: "tcp" | "udp";
  port: number;
  hostPort: number;
}

export interface HetznerFake {
  endpoint: string;
  token: string;
  servers: Map<number, Record<string, any>>;
  sshKeys: Map<number, Record<string, any>>;
  firewalls: Map<number, Record<string, any>>;
  requests: { method: string; path: string; body: unknown }[];
  /**
   * Where a backed server's SSH answers on 127.0.0.1, by its public address: what the fake cloud's
   * network does with a connection to it (its bastion asks this; nothing connects to the address).
   */
  sshPortOf(publicIp: string, port: number): number | undefined;
  /**
   * The 127.0.0.1 port a client reaches a backed server's `proto/port` on: only a port its
   * firewalls open (the fake cloud's network drops the rest), none for an address it did not invent.
   */
  portOf(publicIp: string, proto: "tcp" | "udp", port: number): number | undefined;
  /** The next n requests answer 429 with a reset `resetInS` seconds ahead. */
  rateLimit(n: number, resetInS: number): void;
  stop(): Promise<void>;
}

export async function startHetznerFake(token = "hc-test-token", o: { machines?: ServerMachines } = {}): Promise<HetznerFake> {
  let ids = 1000;
  const servers = new Map<number, Record<string, any>>();
  const sshKeys = new Map<number, Record<string, any>>();
  const firewalls = new Map<number, Record<string, any>>();
  const actions = new Map<number, Record<string, any>>();
  const requests: HetznerFake["requests"] = [];
  // Backed servers: the 127.0.0.1 port of each one's SSH, and the work an action waits for.
  const sshPorts = new Map<number, number>();
  const forwards = new Map<number, MachineForward[]>();
  // What a server's firewalls let in: its inbound tcp/udp rules' ports (a range as its ports); null: no firewall, nothing dropped.
  const opened = (sv: Record<string, any>): { proto: "tcp" | "udp"; port: number }[] | null => {
    const fws = (sv.public_net.firewalls ?? []).map((x: { id: number }) => firewalls.get(x.id)).filter(Boolean);
    if (!fws.length) return null;
    return fws.flatMap((f: Record<string, any>) =>
      (f.rules as Record<string, any>[])
        .filter((r) => r.direction === "in" && (r.protocol === "tcp" || r.protocol === "udp"))
        .flatMap((r) => {
          const [a, b] = String(r.port).split("-").map(Number);
          return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => ({ proto: r.protocol as "tcp" | "udp", port: a! + i }));
        }),
    );
  };
  const work = new Map<number, { done: boolean; error?: string }>();
  const track = (actionId: number, p: Promise<unknown>) => {
    const w: { done: boolean; error?: string } = { done: false };
    work.set(actionId, w);
    p.then(
      () => (w.done = true),
      (e: unknown) => Object.assign(w, { done: true, error: (e as Error).message }),
    );
  };
  let limited = 0;
  let resetAt = 0;
  const action = (command: string, resources: { id: number; type: string }[]) => {
    const a = { id: ++ids, command, status: "running", progress: 0, started: new Date().toISOString(), finished: null, resources, error: null };
    actions.set(a.id, a);
    return a;
  };
  const err = (res: ServerResponse, status: number, code: string, message: string, details: unknown = {}) => send(res, status, { error: { code, message, details } });
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "ratelimit-limit": "3600",
      "ratelimit-remaining": "3599",
      "ratelimit-reset": String(Math.ceil(Date.now() / 1000)),
      ...headers,
    });
    res.end(JSON.stringify(body));
  };
  const list = (key: string, items: unknown[]) => ({
    [key]: items,
    meta: { pagination: { page: 1, per_page: 50, previous_page: null, next_page: null, last_page: 1, total_entries: items.length } },
  });
  const selects = (sel: string, labels: Record<string, string>): boolean | string =>
    sel.split(",").every((term) => {
      const m = /^(!)?([^=!]+)(?:(!=|==|=)(.*))?$/.exec(term.trim());
      if (!m || !LABEL_KEY.test(m[2]!) || (m[4] !== undefined && !LABEL_VALUE.test(m[4]))) throw new Error(`invalid label selector '${sel}'`);
      if (m[1]) return !(m[2]! in labels);
      if (!m[3]) return m[2]! in labels;
      return m[3] === "!=" ? labels[m[2]!] !== m[4] : labels[m[2]!] === m[4];
    });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname.replace(/^\/v1/, "");
    let raw = "";
    for await (const c of req) raw += c;
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return err(res, 400, "json_error", "invalid JSON");
    }
    requests.push({ method: req.method!, path: url.pathname + url.search, body });
    if (req.headers.authorization !== `Bearer ${token}`) return err(res, 401, "unauthorized", "unable to authenticate");
    if (limited > 0) {
      limited--;
      return send(
        res,
        429,
        { error: { code: "rate_limit_exceeded", message: "limit of 3600 requests per hour reached", details: {} } },
        { "ratelimit-remaining": "0", "ratelimit-reset": String(resetAt) },
      );
    }
    const q = (k: string) => url.searchParams.get(k);
    try {
      const filter = (xs: Record<string, any>[]) => {
        const sel = q("label_selector");
        return xs.filter((x) => (!q("name") || x.name === q("name")) && (!sel || selects(sel, x.labels)));
      };
      if (req.method === "GET" && path === "/locations")
        return send(
          res,
          200,
          list(
            "locations",
            ["fsn1", "nbg1", "hel1"].map((name, i) => ({ id: i + 1, name })),
          ),
        );
      if (req.method === "GET" && path === "/server_types") return send(res, 200, list("server_types", TYPES));
      if (req.method === "GET" && path === "/images")
        return send(
          res,
          200,
          list(
            "images",
            IMAGES.filter((i) => (!q("name") || i.name === q("name")) && (!q("type") || i.type === q("type"))),
          ),
        );
      if (req.method === "GET" && path === "/ssh_keys") return send(res, 200, list("ssh_keys", filter([...sshKeys.values()])));
      if (req.method === "GET" && path === "/firewalls") return send(res, 200, list("firewalls", filter([...firewalls.values()])));
      if (req.method === "POST" && path === "/firewalls") {
        if (typeof body?.name !== "string" || !body.name) return err(res, 400, "invalid_input", "invalid input in field 'name'");
        const bad = (body.rules ?? []).find(
          (r: any) =>
            !["in", "out"].includes(r.direction) ||
            !["tcp", "udp", "icmp", "esp", "gre"].includes(r.protocol) ||
            (["tcp", "udp"].includes(r.protocol) && !/^(\d{1,5}(-\d{1,5})?|any)$/.test(String(r.port))) ||
            (r.direction === "in" &&
              (!Array.isArray(r.source_ips) || !r.source_ips.length || r.source_ips.some((c: unknown) => typeof c !== "string" || !/^[\d.:a-f]+\/\d{1,3}$/.test(c)))),
        );
        if (bad) return err(res, 400, "invalid_input", "invalid input in field 'rules'", { fields: [{ name: "rules", messages: ["invalid rule"] }] });
        if (body.labels !== undefined && Object.entries(body.labels).some(([k, v]) => !LABEL_KEY.test(k) || typeof v !== "string" || !LABEL_VALUE.test(v)))
          return err(res, 400, "invalid_input", "invalid input in field 'labels'");
        if ([...firewalls.values()].some((f) => f.name === body.name)) return err(res, 409, "uniqueness_error", "firewall with the same name already exists");
        const f = { id: ++ids, name: body.name, labels: body.labels ?? {}, rules: body.rules ?? [], applied_to: [], created: new Date().toISOString() };
        firewalls.set(f.id, f);
        return send(res, 201, { firewall: f, actions: [] });
      }
      if (req.method === "GET" && path === "/servers") return send(res, 200, list("servers", filter([...servers.values()])));
      let m = /^\/actions\/(\d+)$/.exec(path);
      if (req.method === "GET" && m) {
        const a = actions.get(Number(m[1]));
        if (!a) return err(res, 404, "not_found", "action not found");
        const w = work.get(a.id);
        if (a.status === "running" && (!w || w.done)) {
          if (w?.error) Object.assign(a, { status: "error", progress: 100, finished: new Date().toISOString(), error: { code: "action_failed", message: w.error } });
          else Object.assign(a, { status: "success", progress: 100, finished: new Date().toISOString() });
        }
        if (a.status === "success" && a.command === "delete_server") servers.delete(a.resources[0].id);
        if (a.status === "success" && a.command === "create_server") Object.assign(servers.get(a.resources[0].id) ?? {}, { status: "running" });
        return send(res, 200, { action: a });
      }
      if (req.method === "POST" && path === "/ssh_keys") {
        if (typeof body?.name !== "string" || typeof body?.public_key !== "string") return err(res, 400, "invalid_input", "invalid input in fields 'name', 'public_key'");
        const [type, b64] = body.public_key.split(/\s+/);
        if (!/^ssh-(ed25519|rsa)$/.test(type) || !b64) return err(res, 400, "invalid_input", "invalid input in field 'public_key'");
        const { createHash } = await import("node:crypto");
        const fingerprint = createHash("md5").update(Buffer.from(b64, "base64")).digest("hex").match(/../g)!.join(":");
        if ([...sshKeys.values()].some((k) => k.fingerprint === fingerprint || k.name === body.name))
          return err(res, 409, "uniqueness_error", "SSH key with the same fingerprint already exists");
        const k = { id: ++ids, name: body.name, fingerprint, public_key: body.public_key, labels: body.labels ?? {}, created: new Date().toISOString() };
        sshKeys.set(k.id, k);
        return send(res, 201, { ssh_key: k });
      }
      if (req.method === "POST" && path === "/servers") {
        const missing = ["name", "server_type", "image"].filter((f) => typeof body?.[f] !== "string");
        if (missing.length)
          return err(res, 400, "invalid_input", `invalid input in fields '${missing.join("', '")}'`, {
            fields: missing.map((name) => ({ name, messages: ["Missing data for required field."] })),
          });
        if (
          body.labels !== undefined &&
          (typeof body.labels !== "object" || Object.entries(body.labels).some(([k, v]) => !LABEL_KEY.test(k) || typeof v !== "string" || !LABEL_VALUE.test(v)))
        ) {
          return err(res, 400, "invalid_input", "invalid input in field 'labels'", { fields: [{ name: "labels", messages: ["invalid label"] }] });
        }
        if (body.ssh_keys !== undefined && (!Array.isArray(body.ssh_keys) || body.ssh_keys.some((k: unknown) => ![...sshKeys.values()].some((s) => s.name === k || s.id === k))))
          return err(res, 400, "invalid_input", "invalid input in field 'ssh_keys'");
        if (body.firewalls !== undefined && (!Array.isArray(body.firewalls) || body.firewalls.some((x: any) => !firewalls.has(x?.firewall))))
          return err(res, 400, "invalid_input", "invalid input in field 'firewalls'");
        if (body.user_data !== undefined && typeof body.user_data !== "string") return err(res, 400, "invalid_input", "invalid input in field 'user_data'");
        const st = TYPES.find((t) => t.name === body.server_type);
        if (!st) return err(res, 400, "invalid_input", "invalid input in field 'server_type'", { fields: [{ name: "server_type", messages: ["server type not found"] }] });
        const img = IMAGES.find((i) => i.name === body.image);
        if (!img) return err(res, 400, "invalid_input", "invalid input in field 'image'", { fields: [{ name: "image", messages: ["image not found"] }] });
        if ([...servers.values()].some((s) => s.name === body.name)) return err(res, 409, "uniqueness_error", "server name is already used");
        const id = ++ids;
        const sv = {
          id,
          name: body.name,
          status: "initializing",
          created: new Date().toISOString(),
          labels: body.labels ?? {},
          server_type: st,
          image: img,
          public_net: { ipv4: { ip: `203.0.113.${id % 250}` }, ipv6: null, firewalls: (body.firewalls ?? []).map((x: any) => ({ id: x.firewall, status: "applied" })) },
          private_net: [],
          datacenter: { name: `${body.location ?? "fsn1"}-dc14`, location: { name: body.location ?? "fsn1" } },
          user_data: body.user_data,
        };
        servers.set(id, sv);
        const created = action("create_server", [{ id, type: "server" }]);
        if (o.machines) {
          const keys = (body.ssh_keys ?? []).map((k: unknown) => [...sshKeys.values()].find((x) => x.name === k || x.id === k)!.public_key as string);
          track(
            created.id,
            o.machines
              .boot(
                body.name,
                keys,
                (opened(sv) ?? []).filter((p) => p.port !== 22),
              )
              .then((m) => {
                sshPorts.set(id, m.sshPort);
                forwards.set(id, m.forwards ?? []);
              }),
          );
        }
        return send(res, 201, {
          server: sv,
          action: created,
          next_actions: [action("start_server", [{ id, type: "server" }])],
          root_password: null,
        });
      }
      m = /^\/firewalls\/(\d+)$/.exec(path);
      if (req.method === "DELETE" && m) {
        const id = Number(m[1]);
        if (!firewalls.has(id)) return err(res, 404, "not_found", "firewall not found");
        if ([...servers.values()].some((sv) => sv.public_net.firewalls?.some((x: { id: number }) => x.id === id)))
          return err(res, 422, "resource_in_use", "firewall is still applied to a resource");
        firewalls.delete(id);
        res.writeHead(204).end();
        return;
      }
      m = /^\/servers\/(\d+)$/.exec(path);
      if (req.method === "DELETE" && m) {
        if (!servers.has(Number(m[1]))) return err(res, 404, "not_found", "server not found");
        const deleting = action("delete_server", [{ id: Number(m[1]), type: "server" }]);
        if (o.machines) {
          const name = servers.get(Number(m[1]))!.name as string;
          track(
            deleting.id,
            o.machines.remove(name).then(() => (sshPorts.delete(Number(m[1])), forwards.delete(Number(m[1])))),
          );
        }
        return send(res, 200, { action: deleting });
      }
      return err(res, 404, "not_found", `no route ${req.method} ${path}`);
    } catch (e) {
      return err(res, 400, "invalid_input", (e as Error).message);
    }
  }

  const portOf: HetznerFake["portOf"] = (publicIp, proto, port) => {
    const sv = [...servers.values()].find((x) => x.public_net.ipv4?.ip === publicIp);
    if (!sv) return undefined;
    const open = opened(sv);
    if (open && !open.some((p) => p.proto === proto && p.port === port)) return undefined;
    if (proto === "tcp" && port === 22) return sshPorts.get(sv.id);
    return forwards.get(sv.id)?.find((f) => f.proto === proto && f.port === port)?.hostPort;
  };
  const srv: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}/v1`,
    token,
    servers,
    sshKeys,
    firewalls,
    requests,
    sshPortOf: (publicIp, port) => (port === 22 ? portOf(publicIp, "tcp", 22) : undefined),
    portOf,
    rateLimit(n, resetInS) {
      limited = n;
      resetAt = Math.ceil(Date.now() / 1000) + resetInS;
    },
    stop: () => new Promise((r) => srv.close(() => r())),
  };
}
