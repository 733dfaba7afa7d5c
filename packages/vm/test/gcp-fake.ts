import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A fake of the Compute Engine API v1 (REST) for tests, from its reference: instances, zoneOperations,
// machineTypes, images (getFromFamily), firewalls and globalOperations. It checks the Bearer JWT a
// service-account key signs (RS256, iss = the key's email), required fields and label syntax, answers
// Operation resources that are DONE on the next get/wait, and the documented errors (404 notFound,
// 409 alreadyExists, 400 invalid machine type, QUOTA_EXCEEDED in the operation). Instances are records:
// their addresses are documentation ones, and nothing connects to them.
const LABEL = /^[a-z]([a-z0-9_-]{0,62})?$/;
const LABEL_VALUE = /^[a-z0-9_-]{0,63}$/;
const NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const TYPES = [
  { name: "e2-micro", guestCpus: 2, memoryMb: 1024, isSharedCpu: true },
  { name: "e2-small", guestCpus: 2, memoryMb: 2048, isSharedCpu: true },
  { name: "e2-medium", guestCpus: 2, memoryMb: 4096, isSharedCpu: true },
  { name: "e2-standard-2", guestCpus: 2, memoryMb: 8192 },
  { name: "e2-standard-4", guestCpus: 4, memoryMb: 16384 },
  { name: "n1-standard-1", guestCpus: 1, memoryMb: 3840, deprecated: { state: "DEPRECATED", replacement: "e2-standard-2" } },
];
const FAMILIES: Record<string, string> = { "debian-cloud/debian-12": "debian-12-bookworm-v20261110", "debian-cloud/debian-13": "debian-13-trixie-v20261110" };

export interface GcpFake {
  endpoint: string;
  project: string;
  zone: string;
  key: { type: string; client_email: string; private_key: string; private_key_id: string; project_id: string };
  instances: Map<string, Record<string, any>>;
  firewalls: Map<string, Record<string, any>>;
  requests: { method: string; path: string; body: any }[];
  /** Instances the project may hold before an insert fails with QUOTA_EXCEEDED. */
  quota: { instances: number };
  stop(): Promise<void>;
}

const err = (res: ServerResponse, code: number, reason: string, message: string) => send(res, code, { error: { code, message, errors: [{ message, domain: "global", reason }] } });
function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify(body));
}

function jwtOk(auth: string | undefined, email: string, pub: KeyObject): boolean {
  const m = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(auth ?? "");
  if (!m) return false;
  const head = JSON.parse(Buffer.from(m[1]!, "base64url").toString());
  const claims = JSON.parse(Buffer.from(m[2]!, "base64url").toString());
  if (head.alg !== "RS256" || claims.iss !== email || claims.sub !== email || !(claims.exp > Date.now() / 1000)) return false;
  if (claims.aud !== "https://compute.googleapis.com/" && !String(claims.scope ?? "").includes("auth/compute")) return false;
  return verify("RSA-SHA256", Buffer.from(`${m[1]}.${m[2]}`), pub, Buffer.from(m[3]!, "base64url"));
}

export async function startGcpFake(o: { project?: string; zone?: string } = {}): Promise<GcpFake> {
  const project = o.project ?? "svc-test";
  const zone = o.zone ?? "europe-west1-b";
  const region = zone.replace(/-[a-z]$/, "");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const key = { type: "service_account", client_email: `svc@${project}.iam.gserviceaccount.com`, private_key: pem, private_key_id: "k1", project_id: project };
  const pub = createPublicKey(privateKey);
  const instances = new Map<string, Record<string, any>>();
  const firewalls = new Map<string, Record<string, any>>();
  const ops = new Map<string, { op: Record<string, any>; finish: () => void }>();
  const requests: GcpFake["requests"] = [];
  const quota = { instances: 100 };
  let ids = 1_000_000;
  let base = "";
  const zoneUrl = () => `${base}/compute/v1/projects/${project}/zones/${zone}`;
  const operation = (type: string, target: string, scope: "zone" | "global", finish: () => Record<string, any> | void) => {
    const name = `operation-${Date.now()}-${++ids}`;
    const op: Record<string, any> = {
      kind: "compute#operation",
      id: String(ids),
      name,
      operationType: type,
      targetLink: target,
      status: "RUNNING",
      progress: 0,
      insertTime: new Date().toISOString(),
      user: key.client_email,
      ...(scope === "zone" ? { zone: zoneUrl() } : {}),
      selfLink: `${base}/compute/v1/projects/${project}/${scope === "zone" ? `zones/${zone}` : "global"}/operations/${name}`,
    };
    ops.set(name, {
      op,
      finish: () => {
        const e = finish();
        Object.assign(
          op,
          { status: "DONE", progress: 100, endTime: new Date().toISOString() },
          e ? { error: { errors: [e] }, httpErrorStatusCode: 403, httpErrorMessage: "FORBIDDEN" } : {},
        );
      },
    });
    return op;
  };
  const labelsOk = (l: unknown) =>
    l === undefined || (typeof l === "object" && l !== null && Object.entries(l).every(([k, v]) => LABEL.test(k) && typeof v === "string" && LABEL_VALUE.test(v)));
  const filterBy = (f: string | null, x: Record<string, any>) => {
    if (!f) return true;
    const m = /^(labels\.[a-z0-9_-]+|name|description) = "([^"]*)"$/.exec(f.trim());
    if (!m) throw new Error(`Invalid value for field 'filter': '${f}'. Invalid list filter expression.`);
    return m[1]!.startsWith("labels.") ? x.labels?.[m[1]!.slice(7)] === m[2] : x[m[1]!] === m[2];
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    let raw = "";
    for await (const c of req) raw += c;
    const body = raw ? JSON.parse(raw) : undefined;
    const p = url.pathname;
    requests.push({ method: req.method!, path: p + url.search, body });
    if (!jwtOk(req.headers.authorization, key.client_email, pub))
      return err(res, 401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
    const z = `/compute/v1/projects/${project}/zones/${zone}`;
    const g = `/compute/v1/projects/${project}/global`;
    try {
      let m = /^\/compute\/v1\/projects\/([a-z-]+)\/global\/images\/family\/([a-z0-9-]+)$/.exec(p);
      if (req.method === "GET" && m) {
        const img = FAMILIES[`${m[1]}/${m[2]}`];
        if (!img) return err(res, 404, "notFound", `The resource 'projects/${m[1]}/global/images/family/${m[2]}' was not found`);
        return send(res, 200, { kind: "compute#image", id: "42", name: img, family: m[2], status: "READY", selfLink: `${base}/compute/v1/projects/${m[1]}/global/images/${img}` });
      }
      if (req.method === "GET" && p === `${z}/machineTypes`)
        return send(res, 200, {
          kind: "compute#machineTypeList",
          items: TYPES.map((t, i) => ({ kind: "compute#machineType", id: String(i + 1), zone, ...t, selfLink: `${zoneUrl()}/machineTypes/${t.name}` })),
        });
      m = new RegExp(`^(?:${z}|${g})/operations/([^/]+)(/wait)?$`).exec(p);
      if (m && ((req.method === "POST" && m[2]) || (req.method === "GET" && !m[2]))) {
        const o = ops.get(m[1]!);
        if (!o) return err(res, 404, "notFound", `The resource 'operations/${m[1]}' was not found`);
        if (o.op.status !== "DONE") o.finish();
        return send(res, 200, o.op);
      }
      if (req.method === "GET" && p === `${z}/instances`)
        return send(res, 200, { kind: "compute#instanceList", items: [...instances.values()].filter((i) => filterBy(url.searchParams.get("filter"), i)) });
      m = new RegExp(`^${z}/instances/([^/]+)$`).exec(p);
      if (m && req.method === "GET") {
        const i = instances.get(m[1]!);
        return i ? send(res, 200, i) : err(res, 404, "notFound", `The resource 'projects/${project}/zones/${zone}/instances/${m[1]}' was not found`);
      }
      if (m && req.method === "DELETE") {
        if (!instances.has(m[1]!)) return err(res, 404, "notFound", `The resource 'projects/${project}/zones/${zone}/instances/${m[1]}' was not found`);
        return send(
          res,
          200,
          operation("delete", `${zoneUrl()}/instances/${m[1]}`, "zone", () => void instances.delete(m![1]!)),
        );
      }
      if (req.method === "POST" && p === `${z}/instances`) {
        const b = body ?? {};
        const missing = ["name", "machineType", "disks", "networkInterfaces"].filter((f) => b[f] === undefined);
        if (missing.length) return err(res, 400, "required", `Required field 'resource.${missing[0]}' not specified`);
        if (!NAME.test(b.name))
          return err(res, 400, "invalid", `Invalid value for field 'resource.name': '${b.name}'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'`);
        if (!labelsOk(b.labels)) return err(res, 400, "invalid", "Invalid value for field 'resource.labels': ''. Label keys and values must conform to the documented pattern.");
        const t = TYPES.find((x) => `zones/${zone}/machineTypes/${x.name}` === b.machineType || b.machineType?.endsWith(`/zones/${zone}/machineTypes/${x.name}`));
        if (!t)
          return err(
            res,
            400,
            "invalid",
            `Invalid value for field 'resource.machineType': '${b.machineType}'. Machine type with name '${String(b.machineType).split("/").pop()}' does not exist in zone '${zone}'.`,
          );
        const boot = (b.disks as any[]).find((d) => d.boot);
        if (!boot?.initializeParams?.sourceImage) return err(res, 400, "required", "Required field 'resource.disks[0].initializeParams.sourceImage' not specified");
        if (instances.has(b.name)) return err(res, 409, "alreadyExists", `The resource 'projects/${project}/zones/${zone}/instances/${b.name}' already exists`);
        const id = String(++ids);
        const link = `${zoneUrl()}/instances/${b.name}`;
        return send(
          res,
          200,
          operation("insert", link, "zone", () => {
            if (instances.size >= quota.instances) return { code: "QUOTA_EXCEEDED", message: `Quota 'INSTANCES' exceeded.  Limit: ${quota.instances}.0 in region ${region}.` };
            const n = Number(id) % 250;
            instances.set(b.name, {
              kind: "compute#instance",
              id,
              name: b.name,
              creationTimestamp: new Date().toISOString(),
              zone: zoneUrl(),
              status: "RUNNING",
              machineType: `${zoneUrl()}/machineTypes/${t.name}`,
              labels: b.labels ?? {},
              labelFingerprint: "42WmSpB8rSM=",
              tags: b.tags ?? {},
              metadata: { kind: "compute#metadata", items: b.metadata?.items ?? [] },
              disks: [
                { kind: "compute#attachedDisk", boot: true, autoDelete: true, diskSizeGb: String(boot.initializeParams.diskSizeGb ?? 10), source: `${zoneUrl()}/disks/${b.name}` },
              ],
              networkInterfaces: (b.networkInterfaces as any[]).map((ni) => ({
                ...ni,
                name: "nic0",
                networkIP: `10.132.0.${n}`,
                accessConfigs: (ni.accessConfigs ?? []).map((a: any) => ({ ...a, natIP: `198.51.100.${n}` })),
              })),
              selfLink: link,
            });
          }),
        );
      }
      if (req.method === "GET" && p === `${g}/firewalls`)
        return send(res, 200, { kind: "compute#firewallList", items: [...firewalls.values()].filter((f) => filterBy(url.searchParams.get("filter"), f)) });
      if (req.method === "POST" && p === `${g}/firewalls`) {
        const b = body ?? {};
        if (!b.name || !NAME.test(b.name)) return err(res, 400, "required", "Required field 'resource.name' not specified");
        if (!Array.isArray(b.allowed) || b.allowed.some((a: any) => !["tcp", "udp", "icmp"].includes(a.IPProtocol)))
          return err(res, 400, "invalid", "Invalid value for field 'resource.allowed': must name an IPProtocol");
        if ((b.allowed as any[]).some((a) => (a.ports ?? []).some((x: unknown) => typeof x !== "string" || !/^\d{1,5}(-\d{1,5})?$/.test(x))))
          return err(res, 400, "invalid", "Invalid value for field 'resource.allowed[0].ports[0]': ports are numbers or ranges");
        if (!Array.isArray(b.sourceRanges) || !b.sourceRanges.every((c: unknown) => typeof c === "string" && /^[\d.:a-f]+\/\d{1,3}$/.test(c)) || !Array.isArray(b.targetTags))
          return err(res, 400, "required", "Required field 'resource.sourceRanges' or 'resource.targetTags' not specified");
        if (firewalls.has(b.name)) return err(res, 409, "alreadyExists", `The resource 'projects/${project}/global/firewalls/${b.name}' already exists`);
        const link = `${base}${g}/firewalls/${b.name}`;
        return send(
          res,
          200,
          operation("insert", link, "global", () => void firewalls.set(b.name, { kind: "compute#firewall", id: String(++ids), direction: "INGRESS", ...b, selfLink: link })),
        );
      }
      m = new RegExp(`^${g}/firewalls/([^/]+)$`).exec(p);
      if (m && req.method === "DELETE") {
        if (!firewalls.has(m[1]!)) return err(res, 404, "notFound", `The resource 'projects/${project}/global/firewalls/${m[1]}' was not found`);
        return send(
          res,
          200,
          operation("delete", `${base}${p}`, "global", () => void firewalls.delete(m[1]!)),
        );
      }
      return err(res, 404, "notFound", `no route ${req.method} ${p}`);
    } catch (e) {
      return err(res, 400, "invalid", (e as Error).message);
    }
  }

  const srv: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { endpoint: base, project, zone, key, instances, firewalls, requests, quota, stop: () => new Promise((r) => srv.close(() => r())) };
}
