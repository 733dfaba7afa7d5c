import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dagSettingsFromConfig, loadConfig } from "./config";
import { hostSettingsLines } from "./host-settings";
import { resolveSshFiles } from "./ssh-files";
import { VM_DEFAULTS } from "./vm-defaults";

let home: string;
beforeEach(() => (home = mkdtempSync(join(tmpdir(), "svc-home-"))));
afterEach(() => rmSync(home, { recursive: true, force: true }));

const asMap = (lines: string[]) => Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));

describe("one truth for the host-facing settings", () => {
  test("without SVC_SSH_KEY_PATH the key is the first existing of id_ed25519, id_ecdsa, id_rsa, else id_ed25519 to be generated", () => {
    const ssh = loadConfig({}).ssh;
    expect(resolveSshFiles(ssh, home)).toEqual({ keyPath: join(home, ".ssh/id_ed25519"), knownHostsPath: join(home, ".ssh/known_hosts"), keyConfigured: false });
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh/id_rsa"), "x");
    expect(resolveSshFiles(ssh, home).keyPath).toBe(join(home, ".ssh/id_rsa"));
    writeFileSync(join(home, ".ssh/id_ecdsa"), "x");
    expect(resolveSshFiles(ssh, home).keyPath).toBe(join(home, ".ssh/id_ecdsa"));
  });

  test("configured SSH files win over the defaults", () => {
    const ssh = loadConfig({ SVC_SSH_KEY_PATH: "/etc/svc/ssh/key", SVC_SSH_KNOWN_HOSTS: "/etc/svc/ssh/known_hosts" }).ssh;
    expect(resolveSshFiles(ssh, home)).toEqual({ keyPath: "/etc/svc/ssh/key", knownHostsPath: "/etc/svc/ssh/known_hosts", keyConfigured: true });
  });

  test("the VM directories, default image and network come from the environment, with shared defaults", () => {
    const d = loadConfig({}).vm;
    expect(d).toMatchObject({ imagesDir: VM_DEFAULTS.imagesDir, disksDir: VM_DEFAULTS.disksDir, defaultImage: VM_DEFAULTS.image, defaultNetwork: VM_DEFAULTS.network });
    const c = loadConfig({ SVC_VM_IMAGES_DIR: "/srv/img", SVC_VM_DISKS_DIR: "/srv/vms", SVC_VM_DEFAULT_IMAGE: "debian-test", SVC_VM_DEFAULT_NETWORK: "user" });
    expect(c.vm).toMatchObject({ imagesDir: "/srv/img", disksDir: "/srv/vms", defaultImage: "debian-test", defaultNetwork: "user" });
    expect(dagSettingsFromConfig(c)).toMatchObject({ default_image: "debian-test", vm_network: "user" });
  });

  test("an invalid default image is refused at start, not coerced", () => {
    expect(() => loadConfig({ SVC_VM_DEFAULT_IMAGE: "../etc" })).toThrow(/SVC_VM_DEFAULT_IMAGE: an image name/);
    expect(() => loadConfig({ SVC_VM_DEFAULT_NETWORK: "-x" })).toThrow(/SVC_VM_DEFAULT_NETWORK/);
  });

  test("host settings lines carry the resolved values the scripts read", () => {
    const m = asMap(hostSettingsLines(loadConfig({ SVC_SSH_PORT: "2222", SVC_SSH_USER: "svc", SVC_VM_DEFAULT_IMAGE: "debian-test" }), home));
    expect(m).toMatchObject({
      SVC_SSH_PORT: "2222",
      SVC_SSH_USER: "svc",
      SVC_SSH_KEY_PATH: join(home, ".ssh/id_ed25519"),
      SVC_VM_DEFAULT_IMAGE: "debian-test",
      SVC_VM_IMAGES_DIR: VM_DEFAULTS.imagesDir,
    });
  });

  test("svc-config host prints the same lines, and exits 2 naming every bad variable", () => {
    const bin = resolve(__dirname, "../bin/svc-config");
    const out = execFileSync(bin, ["host"], { env: { PATH: process.env.PATH, HOME: home, SVC_VM_DISKS_DIR: "/srv/vms" }, encoding: "utf8" });
    expect(asMap(out.trim().split("\n"))).toMatchObject({ SVC_VM_DISKS_DIR: "/srv/vms", SVC_SSH_KNOWN_HOSTS: join(home, ".ssh/known_hosts") });
    let err: { status: number; stderr: string } | undefined;
    try {
      execFileSync(bin, ["host"], { env: { PATH: process.env.PATH, HOME: home, SVC_SSH_PORT: "x", SVC_VM_DEFAULT_IMAGE: "A B" }, encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      err = e as { status: number; stderr: string };
    }
    expect(err?.status).toBe(2);
    expect(err?.stderr).toMatch(/SVC_SSH_PORT/);
    expect(err?.stderr).toMatch(/SVC_VM_DEFAULT_IMAGE/);
  });
});
