import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { makeTestCa, type TestCa } from "./test-ca";

// A fake of Azure Resource Manager and of the Entra ID token endpoint for tests, over TLS with a CA made
// for the run, on 127.0.0.1 only. From the REST references: Microsoft.Compute virtualMachines, disks and
// locations/vmSizes; Microsoft.Network virtualNetworks, networkInterfaces, publicIPAddresses and
// networkSecurityGroups; Microsoft.Resources resourceGroups. It checks the Bearer token it issued, the
// api-version of each provider, required fields and references, answers PUT with 201 + Azure-AsyncOperation
// and DELETE with 202 + Location (and Azure-AsyncOperation for VMs), done on the next poll, and the
// documented CloudError codes (OperationNotAllowed for a cores quota, PublicIPCountLimitReached,
// InvalidParameter for an unknown size, PlatformImageNotFound, and an injected 409).
// Addresses it gives VMs are documentation ones: nothing connects to them.
const API: Record<string, string[]> = {
  "Microsoft.Compute": ["2024-07-01", "2024-11-01", "2025-04-01", "2026-03-01"],
  "Microsoft.Compute/disks": ["2024-03-02", "2025-01-02"],
  "Microsoft.Network": ["2024-07-01", "2025-01-01", "2025-04-01", "2025-05-01"],
  "Microsoft.Resources": ["2024-11-01", "2025-04-01"],
};
const SIZES = (
  [
    ["Standard_B1s", 1, 1024],
    ["Standard_B1ms", 1, 2048],
    ["Standard_B2s", 2, 4096],
    ["Standard_B2ms", 2, 8192],
    ["Standard_D2s_v5", 2, 8192],
    ["Standard_D4s_v5", 4, 16384],
  ] as const
).map(([name, numberOfCores, memoryInMB]) => ({ name, numberOfCores, memoryInMB, maxDataDiskCount: 4, osDiskSizeInMB: 1047552, resourceDiskSizeInMB: 0 }));
const IMAGES = ["Debian/debian-12/12-gen2", "Debian/debian-13/13-gen2", "Canonical/ubuntu-24_04-lts/server"];

export interface AzureFake {
  endpoint: string;
  authorityHost: string;
  ca: TestCa;
  subscription: string;
  tenant: string;
  clientId: string;
  clientSecret: string;
  resourceGroup: string;
  location: string;
  /** Resources by lower-cased id. */
  resources: Map<string, Record<string, any>>;
  /** The cloud-init each VM was given (Azure never returns customData). */
  customData: Map<string, string>;
  requests: { method: string; path: string; body: any }[];
  quota: { cores: number; publicIPs: number };
  /** The next PUT of that resource type answers this error. */
  failNext(type: string, status: number, code: string, message: string): void;
  /** What svc made: resources other than the virtual networks (`type/name` each). */
  made(): string[];
  stop(): Promise<void>;
}

export async function startAzureFake(): Promise<AzureFake> {
  const ca = makeTestCa();
  const subscription = randomUUID();
  const tenant = randomUUID();
  const clientId = randomUUID();
  const clientSecret = `secret-${randomUUID()}`;
  const resourceGroup = "svc-rg";
  const location = "westeurope";
  const tokens = new Set<string>();
  const resources = new Map<string, Record<string, any>>();
  const customData = new Map<string, string>();
  const ops = new Map<string, { polls: number; done: () => void }>();
  const requests: AzureFake["requests"] = [];
  const quota = { cores: 64, publicIPs: 50 };
  const failures = new Map<string, { status: number; code: string; message: string }>();
  let base = "";
  let n = 0;
  const rgId = `/subscriptions/${subscription}/resourceGroups/${resourceGroup}`;

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "x-ms-request-id": randomUUID(), ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: string, message: string, target?: string) =>
    send(res, status, { error: { code, message, ...(target ? { target } : {}) } });
  const byType = (t: string) => [...resources.values()].filter((r) => r.type.toLowerCase() === t.toLowerCase());
  const lro = (ns: string, done: () => void, kind: "async" | "location" | "both") => {
    const id = randomUUID();
    ops.set(id, { polls: 0, done });
    const loc = `${base}/subscriptions/${subscription}/providers/${ns}/locations/${location}`;
    const v = API[ns]!.at(-1)!;
    return {
      ...(kind !== "location" ? { "azure-asyncoperation": `${loc}/operations/${id}?api-version=${v}` } : {}),
      ...(kind !== "async" ? { location: `${loc}/operationResults/${id}?api-version=${v}` } : {}),
    };
  };

  /** The Entra ID endpoints; false when the path is none of them. */
  function token(req: IncomingMessage, res: ServerResponse, path: string, raw: string): boolean {
    const issuer = `${base}/${tenant}/v2.0`;
    if (req.method === "GET" && path === `/${tenant}/v2.0/.well-known/openid-configuration`) {
      send(res, 200, {
        token_endpoint: `${base}/${tenant}/oauth2/v2.0/token`,
        authorization_endpoint: `${base}/${tenant}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${base}/${tenant}/oauth2/v2.0/logout`,
        jwks_uri: `${base}/${tenant}/discovery/v2.0/keys`,
        issuer,
        token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt", "client_secret_basic"],
        response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
        scopes_supported: ["openid", "profile", "email", "offline_access"],
      });
      return true;
    }
    if (req.method === "POST" && path === `/${tenant}/oauth2/v2.0/token`) {
      const f = new URLSearchParams(raw);
      if (f.get("grant_type") !== "client_credentials" || !f.get("scope")?.endsWith("/.default")) {
        send(res, 400, { error: "invalid_request", error_description: "AADSTS900144: The request body must contain the following parameter: 'grant_type'." });
        return true;
      }
      if (f.get("client_id") !== clientId || f.get("client_secret") !== clientSecret) {
        send(res, 401, {
          error: "invalid_client",
          error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${f.get("client_id")}'.`,
          error_codes: [7000215],
        });
        return true;
      }
      const t = `fake-arm-${randomUUID()}`;
      tokens.add(t);
      send(res, 200, { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: t });
      return true;
    }
    return false;
  }

  function put(res: ServerResponse, ns: string, type: string, name: string, id: string, b: any) {
    const t = `${ns}/${type}`;
    const f = failures.get(type.toLowerCase());
    if (f) {
      failures.delete(type.toLowerCase());
      return fail(res, f.status, f.code, f.message);
    }
    if (typeof b?.location !== "string" || b.location !== location) return fail(res, 400, "LocationRequired", "The location property is required for this definition.");
    if (b.tags !== undefined && (typeof b.tags !== "object" || Object.values(b.tags).some((v) => typeof v !== "string")))
      return fail(res, 400, "InvalidTag", "tags must map names to strings");
    const p = b.properties ?? {};
    const ref = (x: any, what: string) => (x?.id && resources.has(String(x.id).toLowerCase()) ? null : `${what} ${x?.id ?? "(none)"} was not found`);
    const extra: Record<string, any> = {};
    if (type === "publicIPAddresses") {
      if (!["Static", "Dynamic"].includes(p.publicIPAllocationMethod))
        return fail(res, 400, "InvalidRequestFormat", "publicIPAllocationMethod is required", "publicIPAllocationMethod");
      if (byType(t).length >= quota.publicIPs)
        return fail(res, 400, "PublicIPCountLimitReached", `Cannot create more than ${quota.publicIPs} public IP addresses for this subscription in this region.`);
      extra.ipAddress = `198.51.100.${++n % 250}`;
    } else if (type === "networkSecurityGroups") {
      for (const r of p.securityRules ?? []) {
        const q = r.properties ?? {};
        if (!["Tcp", "Udp", "Icmp", "*"].includes(q.protocol) || !["Allow", "Deny"].includes(q.access) || !["Inbound", "Outbound"].includes(q.direction))
          return fail(res, 400, "SecurityRuleInvalidProtocol", `Security rule ${r.name} has an invalid protocol, access or direction.`);
        if (!(q.priority >= 100 && q.priority <= 4096)) return fail(res, 400, "SecurityRuleInvalidPriority", `Security rule ${r.name} has invalid priority ${q.priority}.`);
        if (!(q.sourceAddressPrefix || q.sourceAddressPrefixes?.length) || !(q.destinationPortRange || q.destinationPortRanges?.length))
          return fail(res, 400, "SecurityRuleParameterContainsUnsupportedValue", `Security rule ${r.name} needs its source prefixes and destination ports.`);
      }
    } else if (type === "virtualNetworks") {
      if (!p.addressSpace?.addressPrefixes?.length) return fail(res, 400, "InvalidRequestFormat", "addressSpace is required");
      extra.subnets = (p.subnets ?? []).map((s: any) => ({ ...s, id: `${id}/subnets/${s.name}`, properties: { ...s.properties, provisioningState: "Succeeded" } }));
    } else if (type === "networkInterfaces") {
      const ipc = p.ipConfigurations?.[0]?.properties;
      if (!ipc) return fail(res, 400, "InvalidRequestFormat", "ipConfigurations is required");
      const subnet = String(ipc.subnet?.id ?? "");
      const vnet = resources.get(subnet.replace(/\/subnets\/[^/]+$/, "").toLowerCase());
      if (!vnet?.properties.subnets.some((s: any) => s.id.toLowerCase() === subnet.toLowerCase()))
        return fail(res, 400, "InvalidResourceReference", `Resource ${subnet} referenced by resource ${id} was not found.`);
      const bad = (ipc.publicIPAddress && ref(ipc.publicIPAddress, "public IP")) || (p.networkSecurityGroup && ref(p.networkSecurityGroup, "NSG"));
      if (bad) return fail(res, 400, "InvalidResourceReference", `Resource referenced by resource ${id}: ${bad}.`);
      Object.assign(ipc, { privateIPAddress: `10.0.0.${(++n % 250) + 4}` });
    } else if (type === "virtualMachines") {
      const size = SIZES.find((s) => s.name === p.hardwareProfile?.vmSize);
      if (!size)
        return fail(
          res,
          400,
          "InvalidParameter",
          `The value ${p.hardwareProfile?.vmSize} provided for the VM size is not valid. The valid sizes in the current region are: ${SIZES.map((s) => s.name).join(",")}.`,
          "vmSize",
        );
      const img = p.storageProfile?.imageReference;
      if (!IMAGES.includes(`${img?.publisher}/${img?.offer}/${img?.sku}`))
        return fail(res, 404, "PlatformImageNotFound", `The platform image '${img?.publisher}:${img?.offer}:${img?.sku}:${img?.version}' is not available.`);
      const os = p.osProfile ?? {};
      if (!os.adminUsername || !os.computerName || !os.linuxConfiguration)
        return fail(res, 400, "InvalidParameter", "osProfile needs computerName, adminUsername and linuxConfiguration", "osProfile");
      const nics = p.networkProfile?.networkInterfaces ?? [];
      if (!nics.length || nics.some((x: any) => ref(x, "NIC")))
        return fail(res, 400, "InvalidParameter", "networkProfile.networkInterfaces must name existing NICs", "networkInterfaces");
      const used = byType(t).reduce((a, vm) => a + (SIZES.find((s) => s.name === vm.properties.hardwareProfile.vmSize)?.numberOfCores ?? 0), 0);
      if (used + size.numberOfCores > quota.cores)
        return fail(
          res,
          409,
          "OperationNotAllowed",
          `Operation could not be completed as it results in exceeding approved Total Regional Cores quota. Location: ${location}, Current Limit: ${quota.cores}, Current Usage: ${used}, Additional Required: ${size.numberOfCores}.`,
        );
      if (os.customData) customData.set(name, Buffer.from(os.customData, "base64").toString());
      const diskName = p.storageProfile.osDisk?.name ?? `${name}_OsDisk_1`;
      const diskId = `${rgId}/providers/Microsoft.Compute/disks/${diskName}`;
      resources.set(diskId.toLowerCase(), {
        id: diskId,
        name: diskName,
        type: "Microsoft.Compute/disks",
        location,
        tags: b.tags ?? {},
        properties: { diskSizeGB: 30, provisioningState: "Succeeded" },
      });
      p.storageProfile.osDisk = { ...p.storageProfile.osDisk, name: diskName, osType: "Linux", managedDisk: { id: diskId } };
      p.osProfile = { ...os, customData: undefined };
      Object.assign(extra, { vmId: randomUUID(), timeCreated: new Date().toISOString() });
    }
    const r = { id, name, type: t, location, tags: b.tags ?? {}, properties: { ...p, ...extra, provisioningState: "Creating" } };
    resources.set(id.toLowerCase(), r);
    const hdr = lro(ns, () => (r.properties.provisioningState = "Succeeded"), "async");
    return send(res, 201, r, hdr);
  }

  function remove(ns: string, type: string, id: string) {
    const r = resources.get(id.toLowerCase());
    if (!r) return undefined;
    return lro(
      ns,
      () => {
        resources.delete(id.toLowerCase());
        if (type !== "virtualMachines") return;
        const disk = r.properties.storageProfile?.osDisk;
        if (disk?.deleteOption === "Delete") resources.delete(String(disk.managedDisk.id).toLowerCase());
        for (const nic of r.properties.networkProfile?.networkInterfaces ?? []) if (nic.properties?.deleteOption === "Delete") resources.delete(String(nic.id).toLowerCase());
        customData.delete(r.name);
      },
      type === "virtualMachines" ? "both" : "location",
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", base);
    let raw = "";
    for await (const c of req) raw += c;
    const path = url.pathname;
    const body = raw && req.headers["content-type"]?.includes("json") ? JSON.parse(raw) : undefined;
    requests.push({ method: req.method!, path: path + url.search, body });
    if (!path.startsWith("/subscriptions/")) return token(req, res, path, raw) || fail(res, 404, "NotFound", `no route ${path}`);
    if (!tokens.has(String(req.headers.authorization).replace(/^Bearer /, ""))) return fail(res, 401, "InvalidAuthenticationToken", "The access token is invalid.");
    const sub = `/subscriptions/${subscription}`;
    if (!path.toLowerCase().startsWith(sub.toLowerCase())) return fail(res, 404, "SubscriptionNotFound", `The subscription '${path.split("/")[2]}' could not be found.`);
    const m = /\/providers\/(Microsoft\.\w+)\/(?:locations\/[^/]+\/)?(\w+)/i.exec(path);
    const ns = m?.[1] ?? "Microsoft.Resources";
    const v = url.searchParams.get("api-version");
    const allowed = API[m?.[2]?.toLowerCase() === "disks" ? "Microsoft.Compute/disks" : ns] ?? [];
    if (!v || !allowed.includes(v))
      return fail(res, 400, "InvalidApiVersionParameter", `The api-version '${v ?? ""}' is invalid. The supported versions are '${allowed.join(",")}'.`);
    const op = /\/locations\/[^/]+\/(operations|operationResults)\/([^/]+)$/i.exec(path);
    if (op && req.method === "GET") {
      const o = ops.get(op[2]!);
      if (!o) return fail(res, 404, "NotFound", "operation not found");
      if (++o.polls < 2) return op[1] === "operations" ? send(res, 200, { status: "InProgress" }) : send(res, 202, undefined, { location: url.href, "retry-after": "0" });
      o.done();
      return op[1] === "operations" ? send(res, 200, { status: "Succeeded" }) : send(res, 204);
    }
    if (req.method === "GET" && /\/providers\/Microsoft\.Compute\/locations\/[^/]+\/vmSizes$/i.test(path)) return send(res, 200, { value: SIZES });
    if (path.toLowerCase() === rgId.toLowerCase() && req.method === "GET")
      return send(res, 200, { id: rgId, name: resourceGroup, type: "Microsoft.Resources/resourceGroups", location, properties: { provisioningState: "Succeeded" } });
    const r = new RegExp(`^${rgId}/providers/(Microsoft\\.\\w+)/(\\w+)(?:/([^/]+))?(?:/subnets/([^/]+))?$`, "i").exec(path);
    if (!r) return fail(res, 404, "ResourceGroupNotFound", `Resource group or route not found: ${path}`);
    const [, rns, type, name, subnet] = r as unknown as [string, string, string, string | undefined, string | undefined];
    if (!name && req.method === "GET") return send(res, 200, { value: byType(`${rns}/${type}`) });
    const id = `${rgId}/providers/${rns}/${type}/${name}`;
    if (req.method === "GET") {
      const x = resources.get(id.toLowerCase());
      if (x && subnet) {
        const s = x.properties.subnets?.find((y: any) => y.name === subnet);
        return s ? send(res, 200, s) : fail(res, 404, "NotFound", `Resource ${id}/subnets/${subnet} not found.`);
      }
      if (!x)
        return fail(
          res,
          404,
          type === "virtualMachines" ? "ResourceNotFound" : "ResourceNotFound",
          `The Resource '${rns}/${type}/${name}' under resource group '${resourceGroup}' was not found.`,
        );
      if (type === "virtualMachines" && url.searchParams.get("$expand") === "instanceView")
        return send(res, 200, {
          ...x,
          properties: {
            ...x.properties,
            instanceView: {
              statuses: [{ code: `ProvisioningState/${x.properties.provisioningState.toLowerCase()}` }, { code: "PowerState/running", displayStatus: "VM running" }],
            },
          },
        });
      return send(res, 200, x);
    }
    if (req.method === "PUT") return put(res, rns, type, name!, id, body);
    if (req.method === "DELETE") {
      const hdr = remove(rns, type, id);
      return hdr ? send(res, 202, undefined, { ...hdr, "retry-after": "0" }) : send(res, 204);
    }
    return fail(res, 405, "MethodNotAllowed", `${req.method} ${path}`);
  }

  const srv: Server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => void handle(req, res).catch((e: Error) => fail(res, 500, "InternalServerError", e.message)));
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  base = `https://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return {
    endpoint: base,
    authorityHost: base,
    ca,
    subscription,
    tenant,
    clientId,
    clientSecret,
    resourceGroup,
    location,
    resources,
    customData,
    requests,
    quota,
    failNext: (type, status, code, message) => failures.set(type.toLowerCase(), { status, code, message }),
    made: () => [...resources.values()].filter((x) => x.type !== "Microsoft.Network/virtualNetworks").map((x) => `${x.type.split("/")[1]}/${x.name}`),
    stop: () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
        ca.remove();
      }),
  };
}
