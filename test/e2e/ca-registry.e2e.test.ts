// ca_deployment and registry_deployment on Debian 12 for real: a cfssl CA and an OCI distribution
// registry whose certificate that CA issued, each on a TCG VM made by the workflow, proven from the
// host with real clients (openssl, curl, umoci, skopeo) against the VMs' forwards on 127.0.0.1. The
// CA's renewal service is tested on the same CA (ca-renew-checks.ts).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { waitFor } from "@svc/testing";
import { caRenewTests } from "./ca-renew-checks";
import { forwardedPort, startProductStack, strongPassword, type ProductStack, type RunOutcome } from "./product-stack";

const LABEL = "pkie2e";
const CA = `${LABEL}-ca`;
const REG = `${LABEL}-reg`;
const DOMAIN = "lab.example.org";
const AUTH_KEY = randomBytes(32).toString("hex");
const REG_PASSWORD = strongPassword();
const VM = { image: "debian12", nets: ["user"], memory_mb: 1024, cpus: 2, disk_gb: 4, ssh_wait_timeout: 1200 };
const CA_CONF = { ...VM, action: "create", vm_name: CA, domain: DOMAIN };
const REG_CONF = { ...VM, action: "create", vm_name: REG, domain: DOMAIN, registry_type: "distribution", ca_vm: CA };

let stack: ProductStack;
let work: string;
let ca: RunOutcome;
let reg: RunOutcome;
const caPort = () => forwardedPort(ca, "tcp", 443);
const regPort = () => forwardedPort(reg, "tcp", 5000);
const pki = (...p: string[]) => path.join(stack.inventoryDir, "pki", CA, ...p);
const run = (cmd: string, args: string[], input?: string) => spawnSync(cmd, args, { encoding: "utf8", timeout: 180_000, input });
const svcVms = () =>
  spawnSync("virsh", ["-c", "qemu:///system", "list", "--all", "--name"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((n) => n.startsWith(`${LABEL}-`))
    .sort();
const virsh = (...args: string[]) => spawnSync("virsh", ["-c", "qemu:///system", ...args], { encoding: "utf8" });
const serial = (pem: string) => run("openssl", ["x509", "-noout", "-serial", "-in", pem]).stdout.trim();
const issue = (name: string) => stack.run("ca_deployment", { action: "issue", vm_name: CA, domain: DOMAIN, cert_name: name }, 900_000);
// The CA's root as it serves it (cfssl's info endpoint), over TLS verified against the root on the host.
const servedRoot = () => {
  const r = run("curl", [
    "-sS",
    "--max-time",
    "30",
    "--cacert",
    pki("root.pem"),
    "-H",
    "Content-Type: application/json",
    "-d",
    '{"label":"primary"}',
    `https://127.0.0.1:${caPort()}/api/v1/cfssl/info`,
  ]);
  return (JSON.parse(r.stdout || "{}") as { result?: { certificate?: string } }).result?.certificate?.trim();
};

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "svc-pki-clients-"));
  stack = await startProductStack(LABEL, { vault_ca_auth_key: AUTH_KEY, vault_registry_admin_password: REG_PASSWORD });
}, 3_000_000);

afterAll(async () => {
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

describe("a certificate authority (cfssl) on debian12", () => {
  test("create ends success; its root is on the host under pki/<vm>/root.pem and is the root the CA serves", async () => {
    ca = await stack.run("ca_deployment", CA_CONF, 3_000_000);
    process.stdout.write(`[pki] ca_deployment create on debian12 (TCG): ${ca.state} in ${ca.seconds} s\n`);
    expect(ca.state).toBe("success");
    expect(ca.tis.cleanup_on_failure!.state).toBe("skipped");
    expect(run("openssl", ["x509", "-noout", "-subject", "-in", pki("root.pem")]).stdout).toMatch(/CN ?= ?svc internal CA/);
    expect(servedRoot()).toBe(readFileSync(pki("root.pem"), "utf8").trim());
  }, 3_100_000);

  test("issue gets a certificate for a name that verifies against the root", async () => {
    const r = await issue("web01.lab.example.org");
    expect(r.state).toBe("success");
    const cert = pki("issued", "web01.lab.example.org.pem");
    expect(run("openssl", ["verify", "-CAfile", pki("root.pem"), cert]).stdout.trim()).toBe(`${cert}: OK`);
    expect(run("openssl", ["x509", "-noout", "-ext", "subjectAltName", "-in", cert]).stdout).toContain("DNS:web01.lab.example.org");
  }, 1_000_000);

  test("a signing request without the credential is refused: /sign does not exist and authsign with a wrong key is rejected", () => {
    const keyOut = path.join(work, "x.key");
    const csr = run("openssl", [..."req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes".split(" "), "-keyout", keyOut, "-subj", "/CN=x.lab.example.org"]).stdout;
    const request = JSON.stringify({ certificate_request: csr, hosts: ["x.lab.example.org"], label: "primary", profile: "server" });
    const post = (endpoint: string, body: string) =>
      run(
        "curl",
        [
          "-sS",
          "--max-time",
          "30",
          "-o",
          "-",
          "-w",
          "\n%{http_code}",
          "--cacert",
          pki("root.pem"),
          "-H",
          "Content-Type: application/json",
          "--data-binary",
          "@-",
          `https://127.0.0.1:${caPort()}/api/v1/cfssl/${endpoint}`,
        ],
        body,
      );
    const plain = post("sign", request);
    expect(plain.stdout.trim().split("\n").pop()).not.toBe("200");
    expect(plain.stdout).not.toContain("BEGIN CERTIFICATE");
    const wrongKey = post("authsign", JSON.stringify({ token: randomBytes(32).toString("base64"), request: Buffer.from(request).toString("base64") }));
    expect(wrongKey.stdout).not.toContain("BEGIN CERTIFICATE");
    expect(wrongKey.stdout).toMatch(/"success":\s*false/);
  });
});

caRenewTests({ stack: () => stack, ca: () => ca, caVm: CA, domain: DOMAIN, work: () => work });

describe("a registry (distribution) with a certificate from that CA", () => {
  const authFile = () => path.join(work, "auth.json");
  const certDir = () => path.join(work, "certs");
  const repo = () => `127.0.0.1:${regPort()}/e2e/hello`;
  const skopeo = (...args: string[]) => run("skopeo", args);

  test("create with ca_vm ends success; TLS to the forwarded port verifies against the CA's root", async () => {
    reg = await stack.run("registry_deployment", REG_CONF, 3_000_000);
    process.stdout.write(`[pki] registry_deployment create on debian12 (TCG): ${reg.state} in ${reg.seconds} s\n`);
    expect(reg.state).toBe("success");
    const s = run("openssl", ["s_client", "-connect", `127.0.0.1:${regPort()}`, "-verify_return_error", "-CAfile", pki("root.pem")], "");
    expect(s.stdout).toMatch(/Verify return code: 0 \(ok\)/);
    expect(s.status).toBe(0);
    mkdirSync(certDir(), { recursive: true });
    copyFileSync(pki("root.pem"), path.join(certDir(), "ca.crt"));
    const auth = Buffer.from(`admin:${REG_PASSWORD}`).toString("base64");
    writeFileSync(authFile(), JSON.stringify({ auths: { [`127.0.0.1:${regPort()}`]: { auth } } }), { mode: 0o600 });
  }, 3_100_000);

  test("an OCI image built on the host with umoci is pushed with skopeo and the credentials, listed, and copied back with the same digest", () => {
    const layout = path.join(work, "oci");
    for (const args of [
      ["init", "--layout", layout],
      ["new", "--image", `${layout}:v1`],
      ["config", "--image", `${layout}:v1`, "--config.cmd", "/hello"],
    ])
      expect(run("umoci", args).status).toBe(0);
    const push = skopeo("copy", "--authfile", authFile(), "--dest-cert-dir", certDir(), `oci:${layout}:v1`, `docker://${repo()}:v1`);
    expect(push.stderr).toBe("");
    expect(push.status).toBe(0);
    const tags = skopeo("list-tags", "--authfile", authFile(), "--cert-dir", certDir(), `docker://${repo()}`);
    expect(JSON.parse(tags.stdout)).toMatchObject({ Tags: ["v1"] });
    const back = path.join(work, "back");
    expect(skopeo("copy", "--authfile", authFile(), "--src-cert-dir", certDir(), `docker://${repo()}:v1`, `oci:${back}:v1`).status).toBe(0);
    const digest = (dir: string) => (JSON.parse(readFileSync(path.join(dir, "index.json"), "utf8")) as { manifests: { digest: string }[] }).manifests[0]!.digest;
    expect(digest(back)).toBe(digest(layout));
  });

  test("a push without credentials gets 401", () => {
    const anon = skopeo("copy", "--dest-cert-dir", certDir(), "--dest-no-creds", `oci:${path.join(work, "oci")}:v1`, `docker://${repo()}:anon`);
    expect(anon.status).not.toBe(0);
    expect(anon.stderr).toMatch(/401|unauthorized|authentication required/i);
  });
});

describe("the products after they are made", () => {
  const health = () => stack.run("infrastructure_health_check", { checks: ["products"], cert_warn_days: 30 }, 900_000);

  test("infrastructure_health_check reports the CA, the registry and their certificate expiries with no concern", async () => {
    const h = await health();
    expect(h.state).toBe("success");
    const lines = (await stack.logs("infrastructure_health_check", h.runId, "collect_findings")).join("\n");
    // Dates as openssl prints them: "ends Nov 26 05:51:00 2027 GMT".
    const ends = String.raw`ends [A-Z][a-z]{2} +\d{1,2} [\d:]{8} \d{4} GMT`;
    expect(lines).toMatch(new RegExp(`FINDING ok products: CA ${CA} root ${ends}`));
    expect(lines).toMatch(new RegExp(`FINDING ok products: CA ${CA} issued web01\\.lab\\.example\\.org\\.pem ${ends}`));
    expect(lines).toMatch(new RegExp(`FINDING ok products: registry ${REG} certificate \\(lab CA ${CA}\\) ${ends}`));
    expect(lines).not.toMatch(/FINDING (warning|critical) products/);
  }, 1_000_000);

  test("deleting the CA while the registry serves a certificate it issued is refused and deletes nothing", async () => {
    const del = await stack.run("ca_deployment", { action: "delete", vm_name: CA, domain: DOMAIN }, 600_000);
    expect(del.state).toBe("failed");
    expect(del.tis.check_in_use!.state).toBe("failed");
    expect(del.tis.delete_vm!.state).not.toBe("success");
    expect((await stack.logs("ca_deployment", del.runId, "check_in_use")).join("\n")).toContain(REG);
    expect(svcVms()).toEqual([CA, REG]);
    expect(existsSync(pki("root.pem"))).toBe(true);
  }, 700_000);

  test("after a restart of its VM the CA has the same root, new serials, and its certificates still verify", async () => {
    const root = readFileSync(pki("root.pem"), "utf8");
    const first = pki("issued", "web01.lab.example.org.pem");
    expect(virsh("destroy", CA).status).toBe(0);
    expect(virsh("start", CA).status).toBe(0);
    await waitFor(async () => (servedRoot() ? true : undefined), { timeoutMs: 900_000, intervalMs: 5000, what: "the CA answering after its restart" });
    expect(servedRoot()).toBe(root.trim());
    const r = await issue("web02.lab.example.org");
    expect(r.state).toBe("success");
    const second = pki("issued", "web02.lab.example.org.pem");
    expect(readFileSync(pki("root.pem"), "utf8")).toBe(root);
    for (const c of [first, second]) expect(run("openssl", ["verify", "-CAfile", pki("root.pem"), c]).stdout.trim()).toBe(`${c}: OK`);
    expect(serial(second)).not.toBe(serial(first));
  }, 1_900_000);

  test("with the registry VM stopped, the health check fails with a concern naming the registry", async () => {
    expect(virsh("destroy", REG).status).toBe(0);
    const h = await health();
    expect(h.state).toBe("failed");
    expect(h.tis.product_concerns!.state).toBe("failed");
    const concern = (await stack.logs("infrastructure_health_check", h.runId, "product_concerns")).join("\n");
    expect(concern).toMatch(new RegExp(`CONCERN [^|]*${REG}`));
    expect(concern).not.toMatch(new RegExp(`CONCERN [^|]*CA ${CA}`));
  }, 1_000_000);

  test("delete removes the registry, then the CA, with their records, roots and VMs", async () => {
    const r = await stack.run("registry_deployment", { action: "delete", vm_name: REG, domain: DOMAIN, registry_type: "distribution" }, 600_000);
    expect(r.state).toBe("success");
    const c = await stack.run("ca_deployment", { action: "delete", vm_name: CA, domain: DOMAIN }, 600_000);
    expect(c.state).toBe("success");
    expect(svcVms()).toEqual([]);
    expect(existsSync(pki("root.pem"))).toBe(false);
    expect(existsSync(path.join(stack.inventoryDir, "products", `${CA}.json`))).toBe(false);
    expect(existsSync(path.join(stack.inventoryDir, "products", `${REG}.json`))).toBe(false);
  }, 1_300_000);

  test("neither secret reaches a task log line, a run row, a task output or a service log", async () => {
    const rows = [await stack.db.selectFrom("dag_run").selectAll().execute(), await stack.db.selectFrom("task_instance").selectAll().execute()];
    const lines = (await stack.db.selectFrom("task_log").select("line").execute()).map((r) => r.line);
    const all = [JSON.stringify(rows), lines.join("\n"), stack.serviceLogs()].join("\n");
    expect(all.includes(AUTH_KEY)).toBe(false);
    expect(all.includes(REG_PASSWORD)).toBe(false);
  });
});
