// The RHEL family's supply chain cannot run here (no RHEL guest): what can run is checked for real.
// The registry role's download table stops a play before anything is fetched when a version has
// no pinned URL and SHA-256, and each entry it ships names its source; mirror-registry's installer
// (whose password can only be an option) runs only while /proc is remounted hidepid=2, and /proc
// gets its options back (stand-ins for mount, findmnt and the installer); the FreeIPA installer
// wrapper keeps the passwords off its command line; and no task in playbooks/ turns a signature or
// checksum check off.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { CATALOG_PATHS } from "../src/paths";

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

test("the role's download table pins each listed installer by an https URL and a SHA-256, with the public source it was taken from", () => {
  const file = path.join(playbooksDir, "roles/registry/vars/default.yml");
  const text = readFileSync(file, "utf8");
  const table = (parse(text) as { __registry_downloads: Record<string, Record<string, { url?: unknown; sha256?: unknown }>> }).__registry_downloads;
  const entries = Object.entries(table).flatMap(([product, versions]) => Object.entries(versions ?? {}).map(([version, e]) => ({ product, version, ...e })));
  expect(entries.length).toBeGreaterThan(0);
  const lines = text.split("\n");
  for (const e of entries) {
    expect(str(e.url)).toMatch(/^https:\/\/[^\s]+$/);
    expect(str(e.sha256)).toMatch(/^[0-9a-f]{64}$/);
    // The URL is the file of that version: harbor-offline-installer-v2.10.2.tgz
    expect(str(e.url)).toContain(e.version.replace(/^v/, ""));
    // The comment lines between the product's key and its first version name the source (a GitHub
    // owner/repo and a file in it) and say the value was not re-verified here.
    const start = lines.indexOf(`  ${e.product}:`);
    expect(start).toBeGreaterThan(-1);
    const comment: string[] = [];
    for (let i = start + 1; i < lines.length && /^\s+#/.test(lines[i] ?? ""); i++) comment.push((lines[i] ?? "").replace(/^\s+#\s?/, ""));
    const said = comment.join(" ");
    expect(said).toMatch(/Source[^:]*: [\w.-]+\/[\w.-]+, .*\b[\w/.-]+\.(json|md|ya?ml|go|nix|rb|toml)\b/);
    expect(said).toMatch(/not re-verified here/i);
  }

  // A listed version is found with nothing in the inventory.
  const harbor = Object.entries(table.harbor ?? {})[0];
  if (!harbor) throw new Error("the table lists no Harbor version");
  const [version, entry] = harbor;
  const found = findDownload({ registry_download_product: "harbor", registry_download_version: version });
  expect(found.out).toContain(`chosen ${str(entry.url)} ${str(entry.sha256)}`);
  expect(found.status).toBe(0);
}, 120_000);

describe("mirror-registry's install under hidepid (tasks/mirror_registry_install.yml)", () => {
  const PASSWORD = "Quay-init-pw-4711";
  // The interpreter itself (not a wrapper such as a pyenv shim, which needs a PATH).
  const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
  // Stand-ins, on a PATH that holds nothing else, so the real mount is never reached:
  // findmnt prints the simulated /proc options, mount changes their hidepid (as a kernel from 5.8
  // shows it: 2 -> invisible, 0 -> none) and logs the call, and ./mirror-registry logs /proc's
  // options when it runs and whether it had the password, then makes Quay's root CA.
  const fakes: Record<string, string> = {
    findmnt: `import os; print(open(os.environ["FAKE_DIR"] + "/proc-options").read())`,
    mount: [
      "import os, sys",
      'd = os.environ["FAKE_DIR"]',
      'opt = sys.argv[2]; assert sys.argv[1] == "-o" and sys.argv[3] == "/proc" and opt.startswith("remount,hidepid=")',
      'open(d + "/calls", "a").write("mount " + opt + "\\n")',
      'if not os.path.exists(d + "/mount-broken"):',
      '    value = {"2": "invisible", "0": None, "off": None}.get(opt.split("=")[1], opt.split("=")[1])',
      '    kept = [o for o in open(d + "/proc-options").read().strip().split(",") if not o.startswith("hidepid=")]',
      '    open(d + "/proc-options", "w").write(",".join(kept + ([f"hidepid={value}"] if value else [])))',
    ].join("\n"),
  };
  const installer = [
    "import os, sys",
    'd = os.environ["FAKE_DIR"]',
    `has_pw = "--initPassword=${PASSWORD}" in sys.argv`,
    'open(d + "/calls", "a").write("install " + open(d + "/proc-options").read() + (" with-password" if has_pw else "") + "\\n")',
    'if os.path.exists(d + "/install-fails"): sys.exit(1)',
    'os.makedirs("quay/quay-rootCA", exist_ok=True); open("quay/quay-rootCA/rootCA.pem", "w").write("ca")',
  ].join("\n");

  function setUp(name: string, procOptions: string, flags: string[] = []) {
    const fake = path.join(dir, "hidepid", name);
    const bin = path.join(fake, "bin");
    const data = path.join(fake, "data");
    mkdirSync(bin, { recursive: true });
    mkdirSync(data, { recursive: true });
    for (const [cmd, body] of Object.entries(fakes)) {
      writeFileSync(path.join(bin, cmd), `#!${python}\n${body}\n`);
      chmodSync(path.join(bin, cmd), 0o755);
    }
    writeFileSync(path.join(data, "mirror-registry"), `#!${python}\n${installer}\n`);
    chmodSync(path.join(data, "mirror-registry"), 0o755);
    writeFileSync(path.join(fake, "proc-options"), procOptions);
    writeFileSync(path.join(fake, "calls"), "");
    for (const f of flags) writeFileSync(path.join(fake, f), "");
    return { fake, bin, data };
  }

  function install(s: { fake: string; bin: string; data: string }) {
    const play = path.join(s.fake, "play.yml");
    writeFileSync(
      play,
      [
        "- hosts: localhost",
        "  gather_facts: false",
        "  environment:",
        `    PATH: ${s.bin}`,
        `    FAKE_DIR: ${s.fake}`,
        "  tasks:",
        `    - ansible.builtin.import_tasks: ${path.join(playbooksDir, "roles/registry/tasks/mirror_registry_install.yml")}`,
        "",
      ].join("\n"),
    );
    const vars = {
      ansible_python_interpreter: python,
      registry_data_dir: s.data,
      svc_fqdn: "registry.lab.example",
      registry_admin_user: "admin",
      vault_registry_admin_password: PASSWORD,
    };
    writeFileSync(path.join(s.fake, "vars.json"), JSON.stringify(vars));
    const r = spawnSync("ansible-playbook", ["-i", "localhost,", "-c", "local", "-e", `@${path.join(s.fake, "vars.json")}`, play], {
      encoding: "utf8",
      env: { ...process.env, ANSIBLE_NOCOLOR: "1" },
      timeout: 120_000,
    });
    const calls = readFileSync(path.join(s.fake, "calls"), "utf8").split("\n").filter(Boolean);
    writeFileSync(path.join(s.fake, "calls"), "");
    return { status: r.status, out: `${r.stdout}${r.stderr}`, calls, procOptions: readFileSync(path.join(s.fake, "proc-options"), "utf8") };
  }

  test("the installer runs only with /proc remounted hidepid=2, /proc gets its options back, and a second run touches nothing", () => {
    const s = setUp("plain", "rw,nosuid,nodev,noexec,relatime");
    const first = install(s);
    expect(first.status).toBe(0);
    expect(first.calls).toEqual(["mount remount,hidepid=2", "install rw,nosuid,nodev,noexec,relatime,hidepid=invisible with-password", "mount remount,hidepid=0"]);
    expect(first.procOptions).toBe("rw,nosuid,nodev,noexec,relatime");
    expect(first.out).not.toContain(PASSWORD);

    const again = install(s);
    expect(again.status).toBe(0);
    expect(again.calls).toEqual([]);
  }, 300_000);

  test("a failing installer still gets /proc's previous hidepid back; an already hidden /proc is left alone", () => {
    const failing = install(setUp("failing", "rw,relatime,hidepid=noaccess", ["install-fails"]));
    expect(failing.status).not.toBe(0);
    expect(failing.calls).toEqual(["mount remount,hidepid=2", "install rw,relatime,hidepid=invisible with-password", "mount remount,hidepid=noaccess"]);
    expect(failing.procOptions).toBe("rw,relatime,hidepid=noaccess");
    expect(failing.out).not.toContain(PASSWORD);

    const hidden = install(setUp("hidden", "rw,relatime,hidepid=invisible"));
    expect(hidden.status).toBe(0);
    expect(hidden.calls).toEqual(["install rw,relatime,hidepid=invisible with-password"]);
    expect(hidden.procOptions).toBe("rw,relatime,hidepid=invisible");
  }, 300_000);

  test("when the remount does not take, the installer never runs (the password stays off every command line)", () => {
    const r = install(setUp("broken", "rw,relatime", ["mount-broken"]));
    expect(r.status).not.toBe(0);
    expect(r.calls).toEqual(["mount remount,hidepid=2", "mount remount,hidepid=0"]);
    expect(r.out).not.toContain(PASSWORD);
  }, 300_000);
});

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

test("every task in playbooks/ that puts --initPassword on a command line runs under a hidepid=2 block that puts /proc back in always:", () => {
  type Task = Record<string, unknown>;
  const found: string[] = [];
  const offending: string[] = [];
  const args = (t: Task) => JSON.stringify(Object.values(t).filter((v) => v && typeof v === "object"));
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e) && /\/(tasks|handlers)\//.test(path.relative(playbooksDir, p))) {
        const visit = (items: unknown, blocks: { block: Task[]; always: Task[] }[]): void => {
          if (!Array.isArray(items)) return;
          for (const t of items as Task[]) {
            if (Array.isArray(t?.block)) {
              const inner = [...blocks, { block: t.block as Task[], always: (t.always as Task[]) ?? [] }];
              for (const k of ["block", "rescue", "always"]) visit(t[k], inner);
              continue;
            }
            if (!args(t).includes("--initPassword")) continue;
            const where = `${path.relative(playbooksDir, p)}: ${String(t.name)}`;
            found.push(where);
            const guarded = blocks.some(({ block, always }) => {
              const before = block.slice(0, block.indexOf(t));
              return (
                before.some((b) => args(b).includes("remount,hidepid=2")) &&
                before.some((b) => str(b.failed_when).includes("hidepid=(2|invisible)")) &&
                always.some((a) => args(a).includes("remount,hidepid={{"))
              );
            });
            if (!guarded || t.no_log !== true) offending.push(where);
          }
        };
        visit(parse(readFileSync(p, "utf8")) as unknown, []);
      }
    }
  };
  walk(playbooksDir);
  expect(found.length).toBeGreaterThan(0);
  expect(offending).toEqual([]);
});

test("no task in playbooks/ downloads a package repository definition: repositories are written with yum_repository, gpgcheck on and a local, fingerprint-pinned key", () => {
  const tasks = allTasks();
  const repoFile = /\.repo\b|yum\.repos\.d|sources\.list(\.d)?\b|\.sources\b/;
  const offending: string[] = [];
  const keys = new Map<string, Record<string, unknown>>();
  for (const { task } of tasks) {
    const k = task["ansible.builtin.rpm_key"] as Record<string, unknown> | undefined;
    if (k) keys.set(str(k.key), k);
  }
  for (const { file, task } of tasks) {
    for (const [mod, args] of Object.entries(task)) {
      if (!args || typeof args !== "object") continue;
      const a = args as Record<string, unknown>;
      if (/(get_url|uri|command|shell)$/.test(mod) && repoFile.test(JSON.stringify(a))) offending.push(`${file}: ${String(task.name)} (${mod} of a repository file)`);
      if (/yum_repository$/.test(mod)) {
        const key = str(a.gpgkey).replace(/^file:\/\//, "");
        if (a.gpgcheck !== true || !str(a.gpgkey).startsWith("file://") || !keys.has(key))
          offending.push(`${file}: ${String(task.name)} (repository without a checked, imported key)`);
      }
    }
  }
  expect(offending).toEqual([]);

  // Harbor's docker-ce repository: Docker's key, imported pinned by its full published fingerprint.
  const vars = parse(readFileSync(path.join(playbooksDir, "roles/registry/vars/default.yml"), "utf8")) as Record<string, string>;
  const repo = tasks.find(({ task }) => (task["ansible.builtin.yum_repository"] as Record<string, unknown> | undefined)?.name === "docker-ce-stable");
  expect(repo?.file).toBe("roles/registry/tasks/present_harbor.yml");
  const key = keys.get("{{ __registry_docker_gpg_key_file }}");
  expect(str(key?.fingerprint)).toContain("__registry_docker_gpg_fingerprint");
  expect(str(vars.__registry_docker_gpg_fingerprint).replace(/ /g, "")).toBe("060A61C51B558A7F742B77AAC52FEB6B621E9F35");
});
