// The RHEL family's supply chain cannot run here (no RHEL guest): what can run is checked for real.
// The registry role's download table stops a play before anything is fetched when a version has
// no pinned URL and SHA-256; the FreeIPA installer wrapper keeps the passwords off its command
// line; and no task in playbooks/ turns a signature or checksum check off.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { CATALOG_PATHS } from "../src";

const { playbooksDir } = CATALOG_PATHS;
const SHA = "a".repeat(64);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "svc-supply-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the registry role's download_entry.yml on localhost with the role's table and `vars`. */
function findDownload(vars: Record<string, unknown>): { status: number | null; out: string } {
  const play = path.join(dir, "download.yml");
  writeFileSync(
    play,
    [
      "- hosts: localhost",
      "  gather_facts: false",
      "  tasks:",
      `    - ansible.builtin.include_vars: ${path.join(playbooksDir, "roles/registry/vars/default.yml")}`,
      `    - ansible.builtin.import_tasks: ${path.join(playbooksDir, "roles/registry/tasks/download_entry.yml")}`,
      "    - ansible.builtin.debug: {msg: 'chosen {{ registry_download.url }} {{ registry_download.sha256 }}'}",
      "",
    ].join("\n"),
  );
  writeFileSync(path.join(dir, "vars.json"), JSON.stringify({ registry_type: "harbor", registry_downloads: {}, ...vars }));
  const r = spawnSync("ansible-playbook", ["-i", "localhost,", "-c", "local", "-e", `@${path.join(dir, "vars.json")}`, play], {
    encoding: "utf8",
    env: { ...process.env, ANSIBLE_NOCOLOR: "1" },
    timeout: 120_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test("a registry installer version with no pinned URL and SHA-256 stops the play, with the entry to add; a pinned one is chosen", () => {
  const none = findDownload({ registry_download_product: "harbor", registry_download_version: "v2.11.1" });
  expect(none.status).not.toBe(0);
  expect(none.out).toContain("harbor v2.11.1 has no pinned download (URL and SHA-256)");

  const url = "https://example.invalid/harbor-offline-installer-v2.11.1.tgz";
  const weak = findDownload({
    registry_download_product: "harbor",
    registry_download_version: "v2.11.1",
    registry_downloads: { harbor: { "v2.11.1": { url, sha256: "d41d8cd98f00b204e9800998ecf8427e" } } },
  });
  expect(weak.status).not.toBe(0);
  expect(weak.out).toContain("has no pinned download");

  const plain = findDownload({
    registry_download_product: "harbor",
    registry_download_version: "v2.11.1",
    registry_downloads: { harbor: { "v2.11.1": { url: url.replace("https", "http"), sha256: SHA } } },
  });
  expect(plain.status).not.toBe(0);

  const pinned = findDownload({
    registry_download_product: "mirror-registry",
    registry_download_version: "v2.0.11",
    registry_downloads: { "mirror-registry": { "v2.0.11": { url, sha256: SHA } } },
  });
  expect(pinned.out).toContain(`chosen ${url} ${SHA}`);
  expect(pinned.status).toBe(0);
}, 300_000);

describe("the FreeIPA installer wrapper", () => {
  const wrapper = path.join(playbooksDir, "roles/identity_server/files/svc-ipa-server-install.py");
  // A stand-in for FreeIPA's module: run_cli() prints what the process's command line and its argv hold.
  const fakeIpa = () => {
    const pkg = path.join(dir, "fake/ipaserver/install");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(dir, "fake/ipaserver/__init__.py"), "");
    writeFileSync(path.join(pkg, "__init__.py"), "");
    writeFileSync(
      path.join(pkg, "ipa_server_install.py"),
      [
        "import sys",
        "class ServerInstall:",
        "    @staticmethod",
        "    def run_cli():",
        "        print('cmdline=' + open('/proc/self/cmdline', 'rb').read().replace(b'\\0', b' ').decode())",
        "        print('argv=' + ' '.join(sys.argv))",
        "",
      ].join("\n"),
    );
    return path.join(dir, "fake");
  };
  const run = (args: string[]) => spawnSync("python3", [wrapper, ...args], { encoding: "utf8", env: { ...process.env, PYTHONPATH: fakeIpa() } });
  const secrets = (mode: number) => {
    const f = path.join(dir, `secrets-${mode.toString(8)}.json`);
    writeFileSync(f, JSON.stringify({ ds_password: "Ds-pw-4711", admin_password: "Adm-pw-0815" }));
    chmodSync(f, mode);
    return f;
  };
  const asRoot = process.getuid?.() === 0;

  test("hands the passwords to the installer's argv in-process: the process's command line never holds them", () => {
    const r = run([secrets(0o600), "--unattended", "--realm", "LAB.EXAMPLE"]);
    if (!asRoot) {
      // Owned by a user other than root: refused (the role writes the file as root).
      expect(r.stderr).toContain("must be owned by root with mode 0600");
      return;
    }
    expect(r.status).toBe(0);
    const cmdline = /^cmdline=(.*)$/m.exec(r.stdout)?.[1] ?? "";
    expect(cmdline).toContain("--realm LAB.EXAMPLE");
    expect(cmdline).not.toMatch(/Ds-pw-4711|Adm-pw-0815/);
    expect(r.stdout).toMatch(/^argv=ipa-server-install --unattended --realm LAB.EXAMPLE --ds-password Ds-pw-4711 --admin-password Adm-pw-0815$/m);
  });

  test("refuses a passwords file others can read, and a password given as an option", () => {
    const open = run([secrets(0o644), "--unattended"]);
    expect(open.status).not.toBe(0);
    expect(open.stderr).toContain("must be owned by root with mode 0600");
    expect(open.stdout).not.toContain("argv=");
    const option = run([secrets(0o600), "--admin-password=x"]);
    expect(option.status).not.toBe(0);
    expect(option.stderr).toContain("passwords come from the secrets file, not options");
  });
});

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** Every task in every YAML file under playbooks/, flattened out of blocks. */
function allTasks(): { file: string; task: Record<string, unknown> }[] {
  const out: { file: string; task: Record<string, unknown> }[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e) && /\/(tasks|handlers)\/|^[^/]+\.yml$/.test(path.relative(playbooksDir, p))) {
        const doc = parse(readFileSync(p, "utf8")) as unknown;
        const visit = (items: unknown): void => {
          if (!Array.isArray(items)) return;
          for (const t of items as Record<string, unknown>[]) {
            out.push({ file: path.relative(playbooksDir, p), task: t });
            for (const k of ["block", "rescue", "always", "tasks", "pre_tasks", "post_tasks", "handlers"]) visit(t?.[k]);
          }
        };
        visit(doc);
      }
    }
  };
  walk(playbooksDir);
  return out;
}

test("no task in playbooks/ turns a package signature check or a download's TLS check off, and every archive download is pinned by SHA-256", () => {
  const tasks = allTasks();
  expect(tasks.length).toBeGreaterThan(100);
  const offending: string[] = [];
  for (const { file, task } of tasks) {
    for (const [mod, args] of Object.entries(task)) {
      if (!args || typeof args !== "object") continue;
      const a = args as Record<string, unknown>;
      // A health check of the VM's own service on 127.0.0.1 may skip TLS verification; nothing fetched may.
      const loopback = /^https?:\/\/127\.0\.0\.1[:/]/.test(str(a.url));
      if (a.disable_gpg_check === true || a.gpgcheck === false || (a.validate_certs === false && !loopback)) offending.push(`${file}: ${String(task.name)} (${mod})`);
      if (/get_url$/.test(mod) && /\.(tgz|tar\.gz|tar|zip|rpm|deb)\b|registry_download/.test(JSON.stringify([a.url, a.dest])) && !str(a.checksum).startsWith("sha256:"))
        offending.push(`${file}: ${String(task.name)} (download without sha256)`);
    }
  }
  expect(offending).toEqual([]);
});
