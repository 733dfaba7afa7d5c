import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import { sharedSshPool } from "@svc/host";
import { createTestOperatorContext, HOSTILE_STRINGS, NUL_STRINGS, startSshd, type TestSshd } from "@svc/testing";
import { runCli as runVmCliInProcess } from "@svc/vm";
import { checkLiteralArgs } from "@svc/engine/operators";
import type { Operator } from "../types";
import { createHostOperators } from "./index";

jest.setTimeout(600_000);

const SENTINEL = "/tmp/svc-pwned";
const VM_CLI = resolve(__dirname, "../../../vm/bin/svc-vm");
let sshd: TestSshd;
let dir: string;
let cfg: SvcConfig;
const ops = new Map<string, Operator>();

async function run(name: string, args: Record<string, unknown>) {
  const op = ops.get(name)!;
  const ctx = createTestOperatorContext(cfg, name);
  return { out: (await op.run(op.args.parse(args), ctx)) as Record<string, unknown>, ctx };
}
const hostileWords = [...HOSTILE_STRINGS];

beforeAll(async () => {
  expect(existsSync(SENTINEL)).toBe(false);
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), "svc-op-quote-"));
  cfg = loadConfig({
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_USER: "root",
    SVC_SSH_KEY_PATH: sshd.keyPath,
    SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
    SVC_INVENTORY_DIR: join(dir, "inventory"),
    SVC_PLAYBOOKS_DIR: dir,
    SVC_VM_IMAGES_DIR: join(dir, "images"),
    SVC_HOST_STATE_DIR: join(dir, "tries"),
    SVC_VM_CLI: VM_CLI,
    SVC_VM_DISKS_DIR: join(dir, "disks"),
  });
  for (const op of createHostOperators()) ops.set(op.name, op);
});
afterAll(async () => {
  await sharedSshPool().closeAll();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
  expect(existsSync(SENTINEL)).toBe(false);
});

describe("hostile strings through every operator argument that reaches a command", () => {
  it(`uses a corpus of ${HOSTILE_STRINGS.length} hostile strings`, () => {
    expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(50);
  });

  it("ssh: every argv word and env value arrives on the host byte-for-byte", async () => {
    const out = join(dir, "ssh-word");
    for (const s of hostileWords) {
      await run("ssh", { argv: ["sh", "-c", 'printf "%s" "$1" > "$2"', "sh", s, out] });
      expect(readFileSync(out, "utf8")).toBe(s);
      await run("ssh", { argv: ["sh", "-c", 'printf "%s" "$V" > "$1"', "sh", out], env: { V: s } });
      expect(readFileSync(out, "utf8")).toBe(s);
    }
  });

  it("ssh: NUL in argv is refused with a clear message", async () => {
    for (const s of NUL_STRINGS) {
      expect(ops.get("ssh")!.args.safeParse({ argv: ["echo", s] }).success).toBe(false);
    }
  });

  it("vm_create, vm_delete, vm_info, vm_wait_ssh: hostile names, images and networks are rejected by the schema, naming the rule", () => {
    for (const s of [...hostileWords, ...NUL_STRINGS]) {
      expect(checkLiteralArgs(ops.get("vm_create")!.args, { name: s, image: "debian-test" })).toEqual([expect.stringMatching(/argument 'name': VM name must match/)]);
      expect(checkLiteralArgs(ops.get("vm_create")!.args, { name: "ok", image: s }).join()).toMatch(/argument 'image': image name/);
      expect(checkLiteralArgs(ops.get("vm_create")!.args, { name: "ok", image: "img", nets: [s] }).join()).toMatch(/argument 'nets': network name/);
      for (const op of ["vm_delete", "vm_info", "vm_wait_ssh"]) expect(checkLiteralArgs(ops.get(op)!.args, { name: s })).toHaveLength(1);
      expect(checkLiteralArgs(ops.get("ansible_playbook")!.args, { playbook: "p.yml", hosts: [{ name: s, host: "127.0.0.1" }] }).length).toBeGreaterThan(0);
      expect(checkLiteralArgs(ops.get("ansible_playbook")!.args, { playbook: "p.yml", hosts: [{ name: "h", host: s }] }).length).toBeGreaterThan(0);
      expect(checkLiteralArgs(ops.get("http_check")!.args, { url: s }).length).toBeGreaterThan(0);
    }
  });

  // A path that happens to name a real file (../../etc/passwd) gets as far as the image check.
  const KEY_REFUSED = /--ssh-key .*: (no such file|not a readable file)|image 'img' not found/;
  const acceptedKeys = () => hostileWords.filter((w) => ops.get("vm_create")!.args.safeParse({ name: "q1", image: "img", ssh_pubkey_path: w }).success);

  it("vm_create: every accepted hostile key path is one --ssh-key value to the VM CLI's parser (in process), never an option or a second word", async () => {
    expect(acceptedKeys().length).toBeGreaterThanOrEqual(50);
    for (const s of acceptedKeys()) {
      const errText: string[] = [];
      const io = {
        out: () => undefined,
        err: (t: string) => void errText.push(t),
        isTTY: false,
        ask: async () => "n",
        env: { SVC_VM_DRIVER: "libvirt", SVC_VM_IMAGES_DIR: join(dir, "images") },
      };
      expect(await runVmCliInProcess(["create", "vm", "q1", "-i", "img", "--ssh-key", s], io)).not.toBe(0);
      expect(errText.join("\n")).toMatch(KEY_REFUSED);
    }
  });

  it("vm_create: a hostile key path reaches the VM CLI on the host (over SSH) as one argument and comes back as a missing or unreadable file", async () => {
    // Every fourth accepted string, each kind of the corpus represented: a VM CLI start per string is
    // seconds, the executor's quoting is proven on every string by the ssh test, the parser above.
    for (const s of acceptedKeys().filter((_, i) => i % 4 === 0)) {
      const err = await run("vm_create", { name: "q1", image: "img", ssh_pubkey_path: s }).catch((e) => e);
      if (!(err instanceof NonRetryableError)) throw new Error(`for ${JSON.stringify(s).slice(0, 50)}: ${err?.message}`);
      expect(err.message).toMatch(KEY_REFUSED);
    }
  });

  it("vm_create: hostile ISO paths and MACs are refused by the schema, or reach the VM CLI as one word and come back as a missing file", async () => {
    for (const s of [...hostileWords, ...NUL_STRINGS]) {
      expect(checkLiteralArgs(ops.get("vm_create")!.args, { name: "ok", iso: "/srv/a.iso", macs: [s] }).join()).toMatch(/argument 'macs': MAC address/);
    }
    const isos = [...hostileWords, "/tmp/$(touch /tmp/svc-pwned).iso", "/tmp/a b; touch /tmp/svc-pwned #.iso", "/tmp/`id`.iso", '/tmp/it\'s "q".iso', "/tmp/a,b]=c.iso"];
    const accepted = isos.filter((w) => ops.get("vm_create")!.args.safeParse({ name: "q2", iso: w }).success);
    expect(accepted.length).toBeGreaterThanOrEqual(5);
    for (const s of accepted) {
      const err = await run("vm_create", { name: "q2", iso: s, disks_gb: [1] }).catch((e) => e);
      if (!(err instanceof NonRetryableError)) throw new Error(`for ${JSON.stringify(s).slice(0, 50)}: ${err?.message}`);
      expect(err.message).toBe(`iso ${s}: no such file on this host`);
    }
    for (const s of [...hostileWords, ...NUL_STRINGS].filter((w) => !accepted.includes(w))) {
      expect(checkLiteralArgs(ops.get("vm_create")!.args, { name: "ok", iso: s }).join()).toMatch(/argument 'iso': .*path must/);
    }
    expect(existsSync(SENTINEL)).toBe(false);
  });

  it("ansible_playbook: hostile extra_vars arrive in the play byte-for-byte (passed as a file, not argv)", async () => {
    writeFileSync(join(dir, "echo-vars.yml"), '- hosts: all\n  gather_facts: false\n  tasks:\n    - copy: { content: "{{ payload | to_json }}", dest: "{{ out }}" }\n');
    const out = join(dir, "vars-out.json");
    const hosts = [{ name: "target", host: "127.0.0.1", port: sshd.port, user: "root" }];
    await run("ansible_playbook", { playbook: "echo-vars.yml", hosts, private_key: sshd.keyPath, extra_vars: { payload: hostileWords, out } });
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(hostileWords);
  });

  it("ansible_playbook: a hostile playbook path is one argument, so it is only ever a missing file", async () => {
    const hosts = [{ name: "target", host: "127.0.0.1", port: sshd.port, user: "root" }];
    const paths = hostileWords.filter((w) => ops.get("ansible_playbook")!.args.safeParse({ playbook: w, hosts }).success);
    expect(paths.length).toBeGreaterThanOrEqual(50);
    for (const p of paths) {
      const err = await run("ansible_playbook", { playbook: p, hosts, private_key: sshd.keyPath }).catch((e) => e);
      expect(err).toBeInstanceOf(NonRetryableError);
      expect(err.message).toMatch(/^playbook .* not found on root@127\.0\.0\.1:\d+$|leaves SVC_PLAYBOOKS_DIR/s);
    }
    expect(existsSync(SENTINEL)).toBe(false);
  });

  it("ansible_playbook: hostile file names that exist reach ansible-playbook as one path after --", async () => {
    const hosts = [{ name: "target", host: "127.0.0.1", port: sshd.port, user: "root" }];
    const names = ["$(touch x).yml", "a b; touch x #.yml", "`id`.yml", 'it\'s "q".yml', "*.yml", "x -e @y.yml"];
    expect(ops.get("ansible_playbook")!.args.safeParse({ playbook: "-e @x", hosts }).success).toBe(false);
    for (const n of names) {
      writeFileSync(join(dir, n), "- hosts: all\n  gather_facts: false\n  tasks:\n    - ping:\n");
      const { out } = await run("ansible_playbook", { playbook: n, hosts, private_key: sshd.keyPath });
      expect(out).toMatchObject({ ok: 1, failed: 0 });
    }
    expect(existsSync(SENTINEL)).toBe(false);
  });

  it("host_check: a hostile path goes to df as one argument", async () => {
    // Every fourth accepted string, so each kind of the corpus is represented: a host check is ten
    // commands, and the executor's quoting they share is proven on every string by the ssh test above.
    const accepted = hostileWords.filter((w) => ops.get("host_check")!.args.safeParse({ path: w }).success);
    const sample = accepted.filter((_, i) => i % 4 === 0);
    expect(sample.length).toBeGreaterThanOrEqual(12);
    for (const s of sample) {
      const { out } = await run("host_check", { path: s, min_disk_gb: 0, min_memory_mb: 0 });
      expect(out.findings).toEqual(expect.arrayContaining([expect.objectContaining({ check: "disk" })]));
    }
    expect(existsSync(SENTINEL)).toBe(false);
  });
});
