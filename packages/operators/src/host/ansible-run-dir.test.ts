import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SvcConfig } from "@svc/config";
import { sharedSshPool, SshExecutor, sshOptionsFromConfig, type HostExecutor } from "@svc/host";
import { createTestOperatorContext, startSshd, type TestSshd } from "@svc/testing";
import { createHostOperators } from "./index";
import { sshdTestConfig } from "./sshd-test-helpers";
import type { Operator } from "../types";

// Every command on the host is an sshd session and a login shell there: a play against SSH targets
// takes three (prepare the run's directory with the extra vars; scan the targets' keys with the
// inventory; the play, whose own shell removes the directory when it ends), however it ends. Given
// a VM's endpoint and keys (vm_wait_ssh's output), one: the play's command makes the directory too.
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: the SSH connection the play came over
      ansible.builtin.command: printenv SSH_CONNECTION
      register: conn
      changed_when: false
    - name: what the play was given, read from the run's directory while it runs
      ansible.builtin.copy:
        dest: "{{ out_dir }}/seen.json"
        content: "{{ {'marker': marker, 'run_dir': inventory_dir, 'conn': conn.stdout} | to_json }}"
        mode: "0644"
    - name: fail when asked
      ansible.builtin.fail: { msg: "asked to fail" }
      when: fail_now | default(false)
`;

let sshd: TestSshd;
let dir: string;
let cfg: SvcConfig;
let op: Operator;
const commands: string[][] = [];
/** When set, the play's command is answered with this instead of run (as the fence answers a try that adopts an earlier try's result). */
let adopted: { code: number; stdout: string; stderr: string } | null = null;

beforeAll(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), "svc-ansible-run-dir-"));
  writeFileSync(join(dir, "play.yml"), PLAYBOOK);
  cfg = sshdTestConfig(sshd, dir, { SVC_ANSIBLE_STRATEGY: "linear" });
  // The host's executor, each command it is given recorded.
  const counted = (ex: HostExecutor): HostExecutor => ({
    target: ex.target,
    run: async (argv, o) => (commands.push([...argv]), adopted && argv.includes("ansible-playbook") ? adopted : ex.run(argv, o)),
    close: () => ex.close(),
  });
  op = createHostOperators({ executor: (ctx) => counted(new SshExecutor(sshOptionsFromConfig(ctx.config), sharedSshPool())) }).find((o) => o.name === "ansible_playbook")!;
}, 60_000);
afterAll(async () => {
  await sharedSshPool().closeAll();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function play(extra: Record<string, unknown>) {
  commands.length = 0;
  const args = op.args.parse({
    playbook: "play.yml",
    hosts: [{ name: "target", host: "127.0.0.1", port: sshd.port, user: sshd.user }],
    private_key: sshd.keyPath,
    extra_vars: { out_dir: dir, ...extra },
  });
  return op.run(args, createTestOperatorContext(cfg, "ansible_playbook"));
}

const runDirs = () => (existsSync(cfg.inventoryDir) ? readdirSync(cfg.inventoryDir).filter((n) => n.startsWith("svc-ansible.")) : []);

test("a play against an SSH target is three commands on the host, its extra vars and inventory in a private directory the play's shell removes", async () => {
  const out = (await play({ marker: "m-ok; $(touch /tmp/not-run)" })) as Record<string, unknown>;
  expect(out).toMatchObject({ ok: 2, failed: 0 });
  const seen = JSON.parse(readFileSync(join(dir, "seen.json"), "utf8")) as { marker: string; run_dir: string };
  expect(seen.marker).toBe("m-ok; $(touch /tmp/not-run)");
  expect(seen.run_dir).toMatch(new RegExp(`^${cfg.inventoryDir}/svc-ansible\\.[A-Za-z0-9]{8}$`));
  expect(commands.length).toBe(3);
  expect(commands[2]).toEqual(expect.arrayContaining(["ansible-playbook", "--", join(dir, "play.yml")]));
  expect(runDirs()).toEqual([]);
}, 300_000);

test("a failing play still leaves no run directory behind, with no extra command to remove it", async () => {
  await expect(play({ marker: "m-fail", fail_now: true })).rejects.toThrow(/task 'fail when asked' failed on target: asked to fail/);
  expect(commands.length).toBe(3);
  expect(runDirs()).toEqual([]);
}, 300_000);

test("a try whose play's result was adopted (its own command never ran) removes its run directory itself", async () => {
  adopted = {
    code: 0,
    stdout: "PLAY RECAP\ntarget : ok=1 changed=0 unreachable=0 failed=0\n",
    stderr: "svc-fence: try 1 of this task finished while this try waited; its result is taken\n",
  };
  try {
    await play({ marker: "m-adopted" });
  } finally {
    adopted = null;
  }
  expect(commands.length).toBe(4);
  expect(commands[3]!.slice(0, 3)).toEqual(["rm", "-rf", "--"]);
  expect(runDirs()).toEqual([]);
}, 300_000);

test("a missing playbook is refused by the first command, which creates nothing", async () => {
  commands.length = 0;
  const args = op.args.parse({ playbook: "absent.yml", hosts: [{ name: "target", host: "127.0.0.1", port: sshd.port }], extra_vars: {} });
  await expect(op.run(args, createTestOperatorContext(cfg, "ansible_playbook"))).rejects.toThrow(/^playbook .*absent\.yml not found on /);
  expect(commands.length).toBe(1);
  expect(runDirs()).toEqual([]);
}, 60_000);

test("a target that answers no key scan fails the task naming it, and the run directory is removed", async () => {
  const args = op.args.parse({ playbook: "play.yml", hosts: [{ name: "gone", host: "127.0.0.1", port: 9 }], extra_vars: { out_dir: dir } });
  await expect(op.run(args, createTestOperatorContext(cfg, "ansible_playbook"))).rejects.toThrow(/SSH on 127\.0\.0\.1:9 did not answer a key scan/);
  expect(runDirs()).toEqual([]);
}, 120_000);

describe("a VM's endpoint and keys as vm_wait_ssh output them", () => {
  const scanned = () => {
    const r = spawnSync("ssh-keyscan", ["-t", "ed25519", "-p", String(sshd.port), "127.0.0.1"], { encoding: "utf8" });
    return r.stdout.split("\n").filter((l) => / ssh-ed25519 /.test(l));
  };
  const withEndpoint = (hostKeys: string[], extra: Record<string, unknown>) => {
    commands.length = 0;
    const args = op.args.parse({
      playbook: "play.yml",
      vm: "target",
      vm_endpoint: { name: "target", ssh_host: "127.0.0.1", ssh_port: sshd.port, ssh_user: sshd.user, host_keys: hostKeys },
      private_key: sshd.keyPath,
      extra_vars: { out_dir: dir, ...extra },
    });
    return op.run(args, createTestOperatorContext(cfg, "ansible_playbook"));
  };

  test("are pinned as given: one command on the host, which makes the run's directory and runs the play; no VM lookup and no key scan", async () => {
    const keys = scanned();
    expect(keys).toHaveLength(1);
    const out = (await withEndpoint(keys, { marker: "m-endpoint" })) as Record<string, unknown>;
    expect(out).toMatchObject({ ok: 2, failed: 0, hosts: ["target"] });
    expect(JSON.parse(readFileSync(join(dir, "seen.json"), "utf8")).marker).toBe("m-endpoint");
    expect(commands.length).toBe(1);
    expect(commands[0]).toContain("ansible-playbook");
    expect(commands.flat().some((w) => /svc-vm|ssh-keyscan/.test(w))).toBe(false);
    expect(runDirs()).toEqual([]);
  }, 300_000);

  test("the next play of the same endpoint and keys rides on the first one's SSH connection (its control socket outlives the run directory)", async () => {
    const keys = scanned();
    await withEndpoint(keys, { marker: "m-first" });
    const first = JSON.parse(readFileSync(join(dir, "seen.json"), "utf8")) as { conn: string };
    await withEndpoint(keys, { marker: "m-second" });
    const second = JSON.parse(readFileSync(join(dir, "seen.json"), "utf8")) as { marker: string; conn: string };
    expect(second.marker).toBe("m-second");
    // The same client address and port: one TCP connection (one SSH handshake) for both plays.
    expect(first.conn).toMatch(/^127\.0\.0\.1 \d+ 127\.0\.0\.1 \d+$/);
    expect(second.conn).toBe(first.conn);
    expect(readdirSync(join(cfg.inventoryDir, ".ssh-control"))).toHaveLength(1);
    expect(runDirs()).toEqual([]);
  }, 300_000);

  // Runs while the connection above is still open: other keys get a socket (and a handshake) of their own.
  test("a key that is not the server's fails the play on host key verification (nothing runs on it), and the run directory is removed", async () => {
    const other = mkdtempSync(join(tmpdir(), "svc-other-key-"));
    spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(other, "k")]);
    const pub = readFileSync(join(other, "k.pub"), "utf8").trim().split(" ");
    rmSync(other, { recursive: true, force: true });
    await expect(withEndpoint([`[127.0.0.1]:${sshd.port} ${pub[0]} ${pub[1]}`], { marker: "m-wrong-key" })).rejects.toThrow(/exit 4.*REMOTE HOST IDENTIFICATION HAS CHANGED/);
    expect(commands.length).toBe(1);
    expect(runDirs()).toEqual([]);
  }, 300_000);

  test("a missing playbook or a run directory that cannot be made fails the one command, saying which, and leaves nothing", async () => {
    const keys = scanned();
    const endpoint = { ssh_host: "127.0.0.1", ssh_port: sshd.port, ssh_user: sshd.user, host_keys: keys };
    const absent = op.args.parse({ playbook: "absent.yml", vm: "target", vm_endpoint: endpoint, extra_vars: {} });
    commands.length = 0;
    await expect(op.run(absent, createTestOperatorContext(cfg, "ansible_playbook"))).rejects.toThrow(/^playbook .*absent\.yml not found on /);
    expect(commands.length).toBe(1);
    // The inventory directory under a regular file: mkdir fails, and the play never starts.
    const blocked = { ...cfg, inventoryDir: join(dir, "play.yml", "inventory") };
    const args = op.args.parse({ playbook: "play.yml", vm: "target", vm_endpoint: endpoint, private_key: sshd.keyPath, extra_vars: { out_dir: dir, marker: "m-blocked" } });
    await expect(op.run(args, createTestOperatorContext(blocked, "ansible_playbook"))).rejects.toThrow(
      /^cannot prepare .*play\.yml\/inventory\/svc-ansible\.[A-Za-z0-9]{8} on .*Not a directory/s,
    );
    expect(runDirs()).toEqual([]);
  }, 120_000);

  test("are refused before anything runs when a key is not one known_hosts line, or when no vm is named", () => {
    const base = { playbook: "play.yml", extra_vars: {} };
    const ep = { ssh_host: "127.0.0.1", ssh_port: 22, host_keys: ["[127.0.0.1]:22 ssh-ed25519 AAAA\n* ssh-ed25519 BBBB"] };
    expect(op.args.safeParse({ ...base, vm: "target", vm_endpoint: ep }).success).toBe(false);
    const good = { ...ep, host_keys: ["[127.0.0.1]:22 ssh-ed25519 AAAA"] };
    expect(op.args.safeParse({ ...base, vm: "target", vm_endpoint: good }).success).toBe(true);
    expect(op.args.safeParse({ ...base, hosts: [{ name: "t", host: "127.0.0.1" }], vm_endpoint: good }).success).toBe(false);
    // A DAG renders a missing wait_ssh output as null: the VM is then looked up and scanned as before.
    expect(op.args.safeParse({ ...base, vm: "target", vm_endpoint: null }).success).toBe(true);
  });
});
