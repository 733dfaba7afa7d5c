import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { createTestDb, ensureLibvirtd, freePort, startMoto, type Moto, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { cliTestEnv, writeVaultedSecrets } from "./cli-test-env";
import { defineSvcDomain } from "./domain";
import { startAzureFake, type AzureFake } from "../../vm/test/azure-fake";
import { startGcpFake, type GcpFake } from "../../vm/test/gcp-fake";
import { startHetznerFake, type HetznerFake } from "../../vm/test/hetzner-fake";

// One `svc-vm list vm --all-hosts -o json` (the real bin, a process of its own) over the five providers:
// `local` (this machine's qemu:///system, a domain defined and never started), AWS (moto_server),
// Hetzner, GCP and Azure (the fakes; Azure over TLS, its CA trusted through NODE_EXTRA_CA_CERTS), one
// VM each, plus a host whose endpoint refuses connections and one whose keys the provider refuses.
// Every API answers on 127.0.0.1; the instances are the emulators' records and nothing connects to
// the addresses they invent (create without SSH).
jest.setTimeout(300_000);

const BIN = resolve(__dirname, "../../vm/bin/svc-vm");
const URI = "qemu:///system";
const P = `vma${process.pid}`;
const KEYS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
let tdb: TestDb;
let moto: Moto;
let locked: Moto;
let hz: HetznerFake;
let gcp: GcpFake;
let az: AzureFake;
let dir: string;
let env: Record<string, string>;
let refused: number;
let undefine: () => void = () => undefined;

type Out = { code: number; out: string; err: string; json: () => any };
const CLOUD_HOSTS = ["aws-t", "hz-t", "gc-t", "az-t"];
/** HTTP requests per operation at the fakes (Azure's Resource Manager apart from its token endpoint), printed at the end. */
const trips: Record<string, number> = {};

/** Count the requests each fake gets while `fn` runs (one VM per fake, so they do not mix). */
async function counted<T>(op: string, fn: () => Promise<T>): Promise<T> {
  const arm = () => az.requests.filter((q) => q.path.startsWith("/subscriptions/")).length;
  const before = { hetzner: hz.requests.length, gcp: gcp.requests.length, azure: arm(), "azure token": az.requests.length - arm() };
  const r = await fn();
  const after = { hetzner: hz.requests.length, gcp: gcp.requests.length, azure: arm(), "azure token": az.requests.length - arm() };
  for (const k of Object.keys(before) as (keyof typeof before)[]) trips[`${k} ${op}`] = after[k] - before[k];
  return r;
}

/** The svc-vm bin, as a user runs it. */
function bin(...argv: string[]): Promise<Out> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...argv], { env, timeout: 180_000 }, (e, out, err) => {
      const code = e ? (typeof e.code === "number" ? e.code : 1) : 0;
      done({ code, out, err, json: () => JSON.parse(out) });
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(os.tmpdir(), "svc-vm-all-"));
  mkdirSync(join(dir, "vms"));
  const debian = { ami_id: "ami-0d3b1e0cafe0de12a", name: "debian-12-amd64-20260101-2000", owner_id: "136693071363", state: "available", public: true };
  const rest = { image_type: "machine", architecture: "x86_64", virtualization_type: "hvm", hypervisor: "xen", root_device_type: "ebs", root_device_name: "/dev/xvda" };
  writeFileSync(join(dir, "amis.json"), JSON.stringify([{ ...debian, ...rest, description: "Debian 12" }]));
  [tdb, moto, locked, hz, gcp, az, refused] = await Promise.all([
    createTestDb("vmall"),
    startMoto({ amis: join(dir, "amis.json") }),
    startMoto({ auth: true }),
    startHetznerFake(),
    startGcpFake(),
    startAzureFake(),
    freePort(), // nothing listens there: connections to it are refused
    ensureLibvirtd(URI),
  ]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "svc@test", "-f", join(dir, "vm_key")]);
  writeFileSync(join(dir, "known_hosts"), "");
  const yaml = (s: string) => `'${s.replace(/'/g, "''")}'`;
  writeVaultedSecrets(
    dir,
    [
      `vault_aws_access_key_id: ${KEYS.accessKeyId}`,
      `vault_aws_secret_access_key: ${KEYS.secretAccessKey}`,
      `vault_hcloud_token: ${hz.token}`,
      `vault_gcp_service_account_json: ${yaml(JSON.stringify(gcp.key))}`,
      `vault_azure_tenant_id: ${az.tenant}`,
      `vault_azure_client_id: ${az.clientId}`,
      `vault_azure_client_secret: ${yaml(az.clientSecret)}`,
      "",
    ].join("\n"),
  );
  env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/root",
    ...cliTestEnv(tdb.url, dir),
    SVC_VM_SSH_PUBKEY: join(dir, "vm_key.pub"),
    SVC_VAULT_PASSWORD_FILE: join(dir, "vault.pass"),
    SVC_LIBVIRT_URI: URI,
    SVC_VM_DRIVER: "libvirt",
    SVC_VM_IMAGES_DIR: join(dir, "images"),
    SVC_VM_DISKS_DIR: join(dir, "vms"),
    NODE_EXTRA_CA_CERTS: az.ca.caFile,
  };
  const quiet = { out: () => undefined, err: (t: string) => void process.stderr.write(`${t}\n`), env, isTTY: false, ask: async () => "" };
  for (const args of [
    ["aws-t", "--provider", "aws", "--region", "eu-west-1", "--endpoint", moto.endpoint],
    ["hz-t", "--provider", "hetzner", "--location", "fsn1", "--endpoint", hz.endpoint],
    ["gc-t", "--provider", "gcp", "--project", gcp.project, "--zone", gcp.zone, "--endpoint", gcp.endpoint],
    [
      "az-t",
      "--provider",
      "azure",
      "--subscription",
      az.subscription,
      "--location",
      az.location,
      "--resource-group",
      az.resourceGroup,
      "--endpoint",
      az.endpoint,
      "--authority-host",
      az.authorityHost,
    ],
    ["hz-down", "--provider", "hetzner", "--location", "nbg1", "--endpoint", `http://127.0.0.1:${refused}/v1`],
    ["aws-bad", "--provider", "aws", "--region", "eu-central-1", "--endpoint", locked.endpoint],
  ]) {
    expect(await runCli(["add", ...args, "--no-probe"], quiet)).toBe(0);
  }
  undefine = defineSvcDomain(URI, `${P}-lv`, join(dir, "vms"));
  const made = await counted("create", () => Promise.all(CLOUD_HOSTS.map((h) => bin("create", "vm", `${P}-${h.slice(0, 2)}`, "-i", "debian12", "-C", h, "-o", "json"))));
  for (const m of made) expect({ code: m.code, out: m.out }).toEqual({ code: 0, out: expect.stringContaining(`"created": true`) });
}, 300_000);

afterAll(async () => {
  if (Object.keys(trips).length) process.stdout.write(`cloud round trips through svc-vm (HTTP requests): ${JSON.stringify(trips)}\n`);
  undefine();
  await Promise.all([moto?.stop(), locked?.stop(), hz?.stop(), gcp?.stop(), az?.stop()]);
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("svc-vm list vm --all-hosts over libvirt, AWS, Hetzner, GCP and Azure", () => {
  it("lists one VM per provider in one call, each row with its provider and region, and the two hosts that did not answer with why (exit 0)", async () => {
    const r = await bin("list", "vm", "--all-hosts", "-o", "json");
    expect(r.code).toBe(0);
    const { vms, unavailable } = r.json() as { vms: Record<string, any>[]; unavailable: Record<string, string>[] };
    const mine = vms.filter((v) => String(v.name).startsWith(P)).sort((a, b) => String(a.host).localeCompare(String(b.host)));
    expect(mine.map((v) => [v.host, v.provider, v.region, v.name])).toEqual([
      ["aws-t", "aws", "eu-west-1", `${P}-aw`],
      ["az-t", "azure", az.location, `${P}-az`],
      ["gc-t", "gcp", gcp.zone, `${P}-gc`],
      ["hz-t", "hetzner", "fsn1", `${P}-hz`],
      ["local", "libvirt", null, `${P}-lv`],
    ]);
    expect(mine.find((v) => v.host === "local")).toMatchObject({ state: "shut off" });
    for (const v of mine.filter((x) => x.provider !== "libvirt")) {
      expect(v.cloud).toMatchObject({ provider: v.provider, instance_id: expect.any(String), labels: expect.objectContaining({ "managed-by": "svc" }) });
    }
    expect(unavailable).toEqual([
      { host: "aws-bad", provider: "aws", region: "eu-central-1", error: expect.stringMatching(/^aws eu-central-1: DescribeInstances: AuthFailure: AWS was not able to validate/) },
      { host: "hz-down", provider: "hetzner", region: "nbg1", error: expect.stringMatching(new RegExp(`^hetzner GET /servers.*ECONNREFUSED 127\\.0\\.0\\.1:${refused}`)) },
    ]);
    expect(r.err).toMatch(/^svc-vm: host 'hz-down' \(hetzner nbg1\): not listed: .*ECONNREFUSED/m);
  });

  it("the table names the hosts not listed under the VMs; -C on a host that does not answer is that host's error and exit code", async () => {
    const t = await bin("list", "vm", "--all-hosts");
    expect(t.code).toBe(0);
    expect(t.out).toMatch(new RegExp(`^gc-t \\(gcp [a-z0-9-]+\\)\\s+${P}-gc\\s`, "m"));
    expect(t.out).toMatch(/^host hz-down \(hetzner nbg1\): not listed: .*ECONNREFUSED/m);
    // svc-vm's own exit for a provider it cannot reach is 1 (error), relayed with its message.
    const one = await bin("list", "vm", "-C", "hz-down", "-o", "json");
    expect(one.code).toBe(1);
    expect(one.json()).toEqual({ error: { code: "error", message: expect.stringMatching(/^host 'hz-down': hetzner GET \/servers.*ECONNREFUSED/) }, exit_code: 1 });
  });

  it("delete vm -y removes each cloud VM, and the listing has none of them after", async () => {
    const gone = await counted("delete", () => Promise.all(CLOUD_HOSTS.map((h) => bin("delete", "vm", `${P}-${h.slice(0, 2)}`, "-y", "-C", h, "-o", "json"))));
    for (const g of gone) expect({ code: g.code, deleted: g.code === 0 && g.json().deleted }).toEqual({ code: 0, deleted: true });
    const r = await bin("list", "vm", "--all-hosts", "-o", "json");
    expect((r.json().vms as { host: string; name: string }[]).filter((v) => v.name.startsWith(P)).map((v) => v.host)).toEqual(["local"]);
    expect([...gcp.instances.keys()].filter((n) => n.startsWith(P))).toEqual([]);
  });

  it("every API the listing reached is on 127.0.0.1", () => {
    for (const e of [moto.endpoint, locked.endpoint, hz.endpoint, gcp.endpoint, az.endpoint, az.authorityHost]) expect(new URL(e).hostname).toBe("127.0.0.1");
    expect(gcp.requests.length).toBeGreaterThan(0);
    expect(az.requests.some((q) => q.path.includes("/oauth2/v2.0/token"))).toBe(true);
  });
});
