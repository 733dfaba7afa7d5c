// identity_deployment on a cloud host, closed by default: a Hetzner host (a fake of its API whose
// server is a real local TCG VM from the debian12 image, reached through the host's fake bastion on
// 127.0.0.1). The fake cloud's network carries to the VM only what the server's firewall opens,
// through 127.0.0.1 forwards; so kinit and dig from this machine working shows the firewall open for
// them, and the firewall object the fake stored is read back rule by rule. One VM for all of it.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLOUD_HOST, startHetznerProductStack, type HetznerProductStack } from "./hetzner-product-stack";
import { strongPassword } from "./product-stack";

const DAG = "identity_deployment";
const VM = "idc";
const DOMAIN = "corp.example.org";
const REALM = "CORP.EXAMPLE.ORG";
const PASSWORD = strongPassword();
// Documentation networks (RFC 5737): what the firewall opens to; never a destination.
const ALLOW = ["198.51.100.0/24", "203.0.113.64/26"];
const CONF = { host: CLOUD_HOST, vm_name: VM, domain: DOMAIN, image: "debian12", memory_mb: 1536, cpus: 2, ssh_wait_timeout: 1200, allow_from: ALLOW };

let stack: HetznerProductStack;
let fake: HetznerProductStack["fake"];
let work: string;

beforeAll(async () => {
  stack = await startHetznerProductStack({ label: "hzidm", dags: [DAG], secrets: { vault_ipa_admin_password: PASSWORD }, memoryMb: 1536 });
  ({ fake, work } = stack);
}, 3_000_000);

afterAll(() => stack?.stop(), 300_000);

const run = (runId: string, conf: Record<string, unknown>, timeoutMs: number) => stack.run(DAG, runId, conf, timeoutMs);
const server = () => [...fake.servers.values()].find((s) => s.name === VM);
const ip = () => String(server()!.public_net.ipv4.ip);
/** The 127.0.0.1 port the fake cloud's network gives a client for the server's proto/port (only what its firewall opens). */
const reach = (proto: "tcp" | "udp", port: number) => {
  const p = fake.portOf(ip(), proto, port);
  if (!p) throw new Error(`the fake cloud carries no ${proto}/${port} to ${VM}`);
  return p;
};
const sh = (cmd: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  spawnSync(cmd, args, { encoding: "utf8", timeout: 120_000, input: opts.input, env: { ...process.env, ...opts.env } });
const domstate = () => spawnSync("virsh", ["-c", "qemu:///system", "domstate", stack.domain(VM)], { encoding: "utf8" });
const record = () => path.join(stack.inventoryDir, "products", `${VM}.json`);

test("create on the cloud host ends success, its server carrying one firewall of svc's, /etc/hosts untouched and its record on the host side", async () => {
  expect(await run("idm-create", CONF, 2_700_000)).toBe("success");
  expect(await stack.states(DAG, "idm-create")).toMatchObject({
    create_vm: "success",
    wait_ssh: "success",
    configure: "success",
    verify: "success",
    register_record: "skipped",
    record_product: "success",
  });
  expect(JSON.parse(readFileSync(record(), "utf8"))).toMatchObject({ product: "identity", vm_name: VM, domain: DOMAIN, cloud_host: CLOUD_HOST, address: ip() });
  expect(fake.firewalls.size).toBe(1);
  const fw = [...fake.firewalls.values()][0]!;
  expect(fw.labels).toEqual({ "managed-by": "svc", "svc-vm": VM });
  expect(server()!.public_net.firewalls).toEqual([{ id: fw.id, status: "applied" }]);
  expect(domstate().stdout.trim()).toBe("running");
  // svc's SSH went through the bastion to the server's address, and nowhere else.
  expect(new Set(stack.bastion.forwards)).toEqual(new Set([`${ip()}:22`]));
}, 2_800_000);

test("the firewall the fake received opens exactly the identity ports to allow_from, and SSH to the bastion's address only", () => {
  const fw = [...fake.firewalls.values()][0]!;
  const rules = (fw.rules as Record<string, unknown>[]).map((r) => `${String(r.direction)} ${String(r.protocol)}/${String(r.port)} from ${(r.source_ips as string[]).join(",")}`);
  const allowed = [...ALLOW].sort().join(",");
  expect(rules.sort()).toEqual(
    ["in tcp/22 from 127.0.0.1/32", ...["tcp/53", "udp/53", "tcp/88", "udp/88", "tcp/389", "tcp/464", "udp/464", "tcp/636"].map((p) => `in ${p} from ${allowed}`)].sort(),
  );
  // What the firewall does not name, the fake cloud's network does not carry.
  expect(fake.portOf(ip(), "tcp", 445)).toBeUndefined();
  expect(fake.portOf(ip(), "tcp", 3268)).toBeUndefined();
});

test("dig through the forwarded DNS port answers the domain's SRV records", () => {
  const dig = (name: string, type: string) => sh("dig", ["+tcp", "+short", "+time=20", "+tries=3", "-p", String(reach("tcp", 53)), "@127.0.0.1", name, type]).stdout.trim();
  expect(dig(`_ldap._tcp.${DOMAIN}`, "SRV")).toMatch(new RegExp(`^0 100 389 ${VM}\\.${DOMAIN.replace(/\./g, "\\.")}\\.$`, "m"));
  expect(dig(`_kerberos._udp.${DOMAIN}`, "SRV")).toMatch(new RegExp(`^0 100 88 ${VM}\\.${DOMAIN.replace(/\./g, "\\.")}\\.$`, "m"));
});

test("kinit admin@REALM with the vault password succeeds through the forwarded KDC port; a wrong one fails", () => {
  const conf = path.join(work, "krb5.conf");
  writeFileSync(
    conf,
    `[libdefaults]\n default_realm = ${REALM}\n dns_lookup_kdc = false\n dns_lookup_realm = false\n udp_preference_limit = 1\n[realms]\n ${REALM} = {\n  kdc = 127.0.0.1:${reach("tcp", 88)}\n }\n`,
  );
  const env = { KRB5_CONFIG: conf, KRB5CCNAME: `FILE:${path.join(work, "ccache")}` };
  const good = sh("kinit", [`admin@${REALM}`], { input: `${PASSWORD}\n`, env });
  expect(good.stderr).not.toMatch(/error|failed/i);
  expect(good.status).toBe(0);
  expect(sh("klist", [], { env }).stdout).toContain(`krbtgt/${REALM}@${REALM}`);
  const bad = sh("kinit", [`admin@${REALM}`], { input: `${PASSWORD}x\n`, env: { ...env, KRB5CCNAME: `FILE:${path.join(work, "ccache-bad")}` } });
  expect(bad.status).not.toBe(0);
});

test("delete removes the server, its VM, its firewall object and its host-side record; /etc/hosts untouched", async () => {
  expect(server()).toBeDefined();
  expect(await run("idm-delete", { host: CLOUD_HOST, action: "delete", vm_name: VM, domain: DOMAIN }, 600_000)).toBe("success");
  expect(await stack.states(DAG, "idm-delete")).toMatchObject({ delete_vm: "success", remove_record: "skipped", remove_product: "success" });
  expect(existsSync(record())).toBe(false);
  expect(fake.servers.size).toBe(0);
  expect(fake.firewalls.size).toBe(0);
  expect(domstate().status).not.toBe(0);
}, 700_000);
