// ca_deployment on a cloud host, closed by default: a Hetzner host whose server is a real local TCG
// VM (hetzner-product-stack.ts). The CA's port opens to allow_from only, so svc never uses it: the
// root, the issued certificates and the product records are on the cloud host's host side (the
// configured host, here this machine), `issue` signs there and the CA's VM posts the request to its
// own 127.0.0.1 port over SSH through the bastion, and the delete-time check reads the records
// there. One VM for all of it (the health check's listing of cloud products: health-check.e2e).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLOUD_HOST, startHetznerProductStack, type HetznerProductStack } from "./hetzner-product-stack";

const DAG = "ca_deployment";
const VM = "cac";
const DOMAIN = "corp.example.org";
// A documentation network (RFC 5737): what the firewall opens to; never a destination.
const ALLOW = ["198.51.100.0/24"];
const CONF = { host: CLOUD_HOST, vm_name: VM, domain: DOMAIN, image: "debian12", memory_mb: 1024, cpus: 2, ssh_wait_timeout: 1200, allow_from: ALLOW };
const NAME = "web01.corp.example.org";

let stack: HetznerProductStack;

beforeAll(async () => {
  stack = await startHetznerProductStack({
    label: "hzca",
    dags: [DAG],
    secrets: { vault_ca_auth_key: randomBytes(32).toString("hex") },
    memoryMb: 1024,
  });
}, 3_000_000);

afterAll(() => stack?.stop(), 300_000);

const run = (runId: string, conf: Record<string, unknown>, timeoutMs = 900_000) => stack.run(DAG, runId, conf, timeoutMs);
const server = () => [...stack.fake.servers.values()].find((s) => s.name === VM);
const ip = () => String(server()!.public_net.ipv4.ip);
const pki = (...p: string[]) => path.join(stack.inventoryDir, "pki", VM, ...p);
const recordOf = (vm: string) => path.join(stack.inventoryDir, "products", `${vm}.json`);
const openssl = (args: string[]) => spawnSync("openssl", args, { encoding: "utf8", timeout: 60_000 });

test("create on the cloud host ends success: the firewall opens the CA's port to allow_from only, and the root and the record are on the host side", async () => {
  expect(await run("ca-create", CONF, 2_700_000)).toBe("success");
  expect(await stack.states(DAG, "ca-create")).toMatchObject({
    create_vm: "success",
    configure: "success",
    verify: "success",
    register_record: "skipped",
    record_product: "success",
  });
  const fw = [...stack.fake.firewalls.values()];
  expect(fw).toHaveLength(1);
  const rules = (fw[0]!.rules as Record<string, unknown>[]).map(
    (r) => `${String(r.direction)} ${String(r.protocol)}/${String(r.port)} from ${(r.source_ips as string[]).join(",")}`,
  );
  expect(rules.sort()).toEqual(["in tcp/22 from 127.0.0.1/32", `in tcp/443 from ${ALLOW.join(",")}`]);
  expect(openssl(["x509", "-noout", "-subject", "-in", pki("root.pem")]).stdout).toMatch(/svc internal CA/);
  expect(JSON.parse(readFileSync(recordOf(VM), "utf8"))).toMatchObject({ product: "ca", vm_name: VM, cloud_host: CLOUD_HOST, port: 443, address: ip() });
}, 2_800_000);

test("issue gets a certificate that verifies against the root, over SSH only: svc never connects to the CA's port", async () => {
  expect(await run("ca-issue", { host: CLOUD_HOST, action: "issue", vm_name: VM, domain: DOMAIN, cert_name: NAME, cert_sans: ["web01", "198.51.100.7"] })).toBe("success");
  const cert = pki("issued", `${NAME}.pem`);
  expect(openssl(["verify", "-CAfile", pki("root.pem"), cert]).stdout.trim()).toBe(`${cert}: OK`);
  const san = openssl(["x509", "-noout", "-ext", "subjectAltName", "-in", cert]).stdout;
  for (const n of [`DNS:${NAME}`, "DNS:web01", "IP Address:198.51.100.7"]) expect(san).toContain(n);
  // The key stays on the host side, private; the certificate is for that key.
  const key = pki("issued", `${NAME}.key`);
  expect(statSync(key).mode & 0o777).toBe(0o600);
  const pub = (args: string[]) => openssl(args).stdout.trim();
  expect(pub(["pkey", "-pubout", "-in", key])).toBe(pub(["x509", "-noout", "-pubkey", "-in", cert]));
  // The bastion carried SSH to the server and nothing else.
  expect(new Set(stack.bastion.forwards)).toEqual(new Set([`${ip()}:22`]));
}, 1_000_000);

test("delete is refused while a product's record names the CA as its issuer, and deletes nothing", async () => {
  // A registry on the same cloud host whose certificate this CA issued, as registry_deployment records it.
  const other = recordOf("reg1");
  mkdirSync(path.dirname(other), { recursive: true });
  writeFileSync(other, `${JSON.stringify({ product: "registry", vm_name: "reg1", cloud_host: CLOUD_HOST, ca_vm: VM, domain: DOMAIN })}\n`);
  try {
    expect(await run("ca-delete-used", { host: CLOUD_HOST, action: "delete", vm_name: VM, domain: DOMAIN })).toBe("failed");
    expect(await stack.states(DAG, "ca-delete-used")).toMatchObject({ check_in_use: "failed" });
    expect((await stack.states(DAG, "ca-delete-used")).delete_vm).not.toBe("success");
    expect((await stack.logs(DAG, "ca-delete-used", "check_in_use")).join("\n")).toContain(`CA ${VM} is in use: reg1 serve(s) a certificate it issued`);
    expect(server()).toBeDefined();
    expect(existsSync(pki("root.pem"))).toBe(true);
  } finally {
    rmSync(other, { force: true });
  }
}, 1_000_000);

test("delete removes the server, its firewall, and on the host side the CA's record, root and issued certificates", async () => {
  expect(await run("ca-delete", { host: CLOUD_HOST, action: "delete", vm_name: VM, domain: DOMAIN })).toBe("success");
  expect(await stack.states(DAG, "ca-delete")).toMatchObject({ check_in_use: "success", delete_vm: "success", remove_record: "skipped", remove_product: "success" });
  expect(stack.fake.servers.size).toBe(0);
  expect(stack.fake.firewalls.size).toBe(0);
  expect(existsSync(recordOf(VM))).toBe(false);
  expect(existsSync(pki())).toBe(false);
  expect(spawnSync("virsh", ["-c", "qemu:///system", "domstate", stack.domain(VM)], { encoding: "utf8" }).status).not.toBe(0);
}, 1_000_000);
