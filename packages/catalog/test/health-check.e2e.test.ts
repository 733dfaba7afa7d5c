import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { makeSelfSignedCert } from "@svc/testing";
import { note, startCatalogueRuntime, type CatalogueRuntime } from "./runtime-harness";

let rt: CatalogueRuntime;
let certDir: string;
let inventory: string;
beforeAll(async () => {
  inventory = mkdtempSync(path.join(tmpdir(), "svc-health-inventory-"));
  rt = await startCatalogueRuntime("cathealth", { SVC_INVENTORY_DIR: inventory });
  certDir = mkdtempSync(path.join(tmpdir(), "svc-health-certs-"));
  // One certificate inside the warning window, one well outside it.
  for (const [name, days] of [
    ["ends-soon.crt", 3],
    ["ends-later.pem", 400],
  ] as const) {
    const made = makeSelfSignedCert({ keyPath: path.join(certDir, `${name}.key`), certPath: path.join(certDir, name), days, commonName: name });
    if (made.status !== 0) throw new Error(`openssl could not make ${name}: ${made.stderr}`);
  }
}, 120_000);
afterAll(async () => {
  await rt?.close();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
  if (inventory) rmSync(inventory, { recursive: true, force: true });
});

const hasHardwareVirt = /\b(vmx|svm)\b/.test(readFileSync("/proc/cpuinfo", "utf8"));

test("infrastructure_health_check runs to success here and reports what it finds as findings, not failures", async () => {
  // Only localhost is looked up: the test sends no DNS query off this machine.
  const { run, states, seconds } = await rt.run("infrastructure_health_check", { dns_names: ["localhost"], cert_paths: [certDir], cert_warn_days: 30 }, 600_000);
  note(`infrastructure_health_check: ${run.state} in ${seconds} s`);
  expect(states).toEqual({ validate_host: "success", collect_findings: "success", product_concerns: "success", cloud_orphans: "success", report: "success" });
  expect(run.state).toBe("success");
  const log = (await rt.logs("infrastructure_health_check", run.run_id, "collect_findings")).join("\n");
  expect(log).toMatch(hasHardwareVirt ? /FINDING ok host: hardware virtualization available/ : /FINDING warning host: no hardware virtualization/);
  expect(log).toMatch(/FINDING ok hypervisor: libvirt answers/);
  expect(log).toMatch(/FINDING \w+ vms: \d+ VMs defined/);
  expect(log).toMatch(/FINDING \w+ networks: \d+ networks defined/);
  expect(log).toMatch(/FINDING ok dns: localhost resolves to 127\.0\.0\.1/);
  expect(log).toContain(`FINDING warning certificates: ${certDir}/ends-soon.crt ends`);
  expect(log).not.toContain("ends-later.pem ends");
  const reportFile = `/var/lib/svc/reports/health-${run.run_id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`;
  const report = JSON.parse(readFileSync(reportFile, "utf8")) as { findings: { check: string; severity: string }[] };
  rmSync(reportFile, { force: true });
  expect(new Set(report.findings.map((f) => f.check))).toEqual(new Set(["host", "hypervisor", "vms", "networks", "dns", "certificates", "products"]));
}, 660_000);

test("infrastructure_health_check runs only the checks asked for", async () => {
  const { run, states } = await rt.run("infrastructure_health_check", { checks: ["certificates"], cert_paths: [certDir] }, 300_000);
  expect({ state: run.state, states }).toEqual({
    state: "success",
    states: { validate_host: "skipped", collect_findings: "success", product_concerns: "skipped", cloud_orphans: "skipped", report: "success" },
  });
  const log = (await rt.logs("infrastructure_health_check", run.run_id, "collect_findings")).join("\n");
  expect(log).toContain("FINDING warning certificates:");
  expect(log).not.toMatch(/FINDING \w+ (host|hypervisor|vms|networks|dns):/);
  rmSync(`/var/lib/svc/reports/health-${run.run_id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`, { force: true });
}, 360_000);

test("a product on a cloud host is listed as not checked from this host, and no probe of its address makes a concern", async () => {
  // As ca_deployment records a CA on a cloud host; its address is 127.0.0.1 with nothing listening
  // on the port, so a probe that should not happen would fail the run rather than leave this machine.
  mkdirSync(path.join(inventory, "products"), { recursive: true });
  const record = {
    product: "ca",
    vm_name: "cloudca",
    domain: "corp.example.org",
    port: 9,
    address: "127.0.0.1",
    forwards: [],
    root: "pki/cloudca/root.pem",
    cloud_host: "hz1",
  };
  writeFileSync(path.join(inventory, "products", "cloudca.json"), `${JSON.stringify(record)}\n`);
  try {
    const { run, states } = await rt.run("infrastructure_health_check", { checks: ["products"] }, 300_000);
    expect({ state: run.state, collect: states.collect_findings, concerns: states.product_concerns }).toEqual({ state: "success", collect: "success", concerns: "success" });
    const log = (await rt.logs("infrastructure_health_check", run.run_id, "collect_findings")).join("\n");
    expect(log).toContain("FINDING ok products: ca cloudca is on cloud host hz1: not checked from this host (its ports open to its allow_from only)");
    expect(log).not.toMatch(/FINDING (warning|critical) products/);
    expect(log).not.toContain("127.0.0.1:9");
    rmSync(`/var/lib/svc/reports/health-${run.run_id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`, { force: true });
  } finally {
    rmSync(path.join(inventory, "products"), { recursive: true, force: true });
  }
}, 360_000);
