import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { runCli } from "../src/cli/run";
import { cli } from "./helpers";

const BIN = resolve(__dirname, "../bin/svc-plugins");
const OS_RELEASE = resolve(__dirname, "../../../test/deploy/fixtures/os-release");
const env = { PATH: process.env.PATH };
const ALL = ["rhel9", "rhel10", "centos-stream9", "centos-stream10", "rocky9", "debian12"];

async function listOn(osRelease: string) {
  let out = "";
  const code = await runCli(["list", "-o", "json"], { stdout: (t) => void (out += t), stderr: () => undefined, env, osReleasePath: join(OS_RELEASE, osRelease) });
  return { code, doc: JSON.parse(out) as { plugins: { name: string; kind: string; version: string; description: string; matches_host: boolean }[] } };
}

describe("svc-plugins list, info and usage", () => {
  it("the binary lists every OS plugin with kind, version and description", async () => {
    const { stdout } = await promisify(execFile)(BIN, ["list"]);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+KIND\s+VERSION\s+HOST\s+DESCRIPTION$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(ALL);
    expect(lines.slice(2).every((l) => / os {2,}1\.0\.0 /.test(l))).toBe(true);
  });

  it("list -o json marks the plugin that fits the host's os-release", async () => {
    const rocky = await listOn("rocky-9");
    expect(rocky.code).toBe(0);
    expect(rocky.doc.plugins.map((p) => p.name)).toEqual(ALL);
    expect(rocky.doc.plugins.filter((p) => p.matches_host).map((p) => p.name)).toEqual(["rocky9"]);
    expect((await listOn("debian-12")).doc.plugins.filter((p) => p.matches_host).map((p) => p.name)).toEqual(["debian12"]);
    expect((await listOn("plan9")).doc.plugins.some((p) => p.matches_host)).toBe(false);
  });

  it("info shows checks, changes, settings with their current values and dependencies", async () => {
    const r = await cli(["info", "--plugin", "centos-stream10", "-o", "json"], { ...env, SVC_VM_IMAGES_DIR: "/srv/vm-images", SVC_WEB_UI_PORT: "9888" });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ name: "centos-stream10", kind: "os", family: "rhel" });
    expect(doc.settings).toMatchObject({ SVC_VM_IMAGES_DIR: "/srv/vm-images", "SVC_ASSISTANT_PORT, SVC_WEB_UI_PORT": "8080,9888", SVC_LIBVIRT_POOL: "default" });
    expect(doc.checks.join("\n")).toMatch(/virtqemud/);
    expect(doc.changes.join("\n")).toMatch(/semanage fcontext/);
    expect(doc.dependencies).toContain("dnf");
    const text = await cli(["info", "--plugin", "debian12"], env);
    expect(text.stdout).toMatch(/^debian12 \(os plugin, version 1\.0\.0, debian family\)/);
    expect(text.stdout).toContain("SVC_VM_IMAGES_DIR = /var/lib/svc/images");
  });

  it("an unknown plugin exits 2 and names the known ones", async () => {
    for (const cmd of ["info", "deploy"]) {
      const r = await cli([cmd, "--plugin", "windows11"], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown plugin "windows11"; known plugins: ${ALL.join(", ")}`);
    }
  });

  it("usage errors exit 2: a missing --plugin, an unknown option, a bad -o, a --host that is not USER@HOST[:PORT]", async () => {
    for (const argv of [
      ["deploy"],
      ["list", "--frob"],
      ["list", "-o", "yaml"],
      ["deploy", "--plugin", "debian12", "--host", "root@$(id)"],
      ["deploy", "--plugin", "debian12", "--host", "-oProxyCommand=x"],
      ["deploy", "--plugin", "debian12", "--host", "root@h:0"],
      ["deploy", "--plugin", "debian12", "--host", "root@h:70000"],
      ["remove"],
    ]) {
      const r = await cli(argv, env);
      expect([argv, r.code]).toEqual([argv, 2]);
      expect(r.stderr).toContain("Usage: svc-plugins");
    }
  });

  it("a plugin for another OS is refused before anything is planned", async () => {
    const r = await cli(["deploy", "--plugin", "rocky9", "--dry-run"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/plugin rocky9 does not fit local \(Debian GNU\/Linux 12/);
  });
});
