import { mkdirSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { NonRetryableError, UnavailableError } from "@svc/errors";
import { SshExecutor, SshPool, sharedSshPool } from "@svc/host";
import { acquireVmTestLock, createTestOperatorContext, createVmScratch, ensureLibvirtd, ensureTestImage, startSshd, type TestSshd, type VmScratch } from "@svc/testing";
import type { Operator } from "../types";
import { createHostOperators } from "./index";

jest.setTimeout(900_000);

// The worker's path: SSH to the host (a private sshd here), the VM CLI runs there on libvirt,
// ansible-playbook runs there against the VM. One VM for the whole file.
const VM_CLI = resolve(__dirname, "../../../vm/bin/svc-vm");
const vm = `svct-${randomBytes(3).toString("hex")}-op`;
const MAC = "52:54:00:6f:70:01";
let release: () => void = () => undefined;
let sshd: TestSshd;
let scratch: VmScratch;
let cfg: SvcConfig;
let ops: Map<string, Operator>;
let downCfg: SvcConfig;
const vmPool = new SshPool();

async function run(name: string, args: Record<string, unknown>, config = cfg) {
  const op = ops.get(name)!;
  const ctx = createTestOperatorContext(config, name);
  try {
    return { out: (await op.run(op.args.parse(args), ctx)) as Record<string, any>, ctx };
  } catch (e) {
    Object.assign(e as object, { log: ctx.text() });
    throw e;
  }
}

beforeAll(async () => {
  release = await acquireVmTestLock();
  await ensureLibvirtd();
  const img = ensureTestImage();
  sshd = await startSshd();
  scratch = createVmScratch("op");
  const base = resolve(scratch.disksDir, "..");
  mkdirSync(join(base, "playbooks"));
  writeFileSync(
    join(base, "playbooks", "configure.yml"),
    [
      "- hosts: all",
      "  gather_facts: true",
      "  tasks:",
      "    - name: write the marker file",
      "      ansible.builtin.copy: { content: \"{{ message }}\\n\", dest: /etc/svc-demo, mode: '0644' }",
      "    - name: add the demo user",
      "      ansible.builtin.user: { name: svcdemo, shell: /bin/sh }",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(base, "playbooks", "broken.yml"),
    [
      "- hosts: all",
      "  gather_facts: false",
      "  tasks:",
      "    - name: this step works",
      "      ansible.builtin.command: /bin/true",
      "    - name: this task fails on purpose",
      '      ansible.builtin.fail: { msg: "disk layout is not what we expect" }',
      "",
    ].join("\n"),
  );
  const vars = {
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_USER: "root",
    SVC_SSH_KEY_PATH: sshd.keyPath,
    SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
    SVC_VM_IMAGES_DIR: img.imagesDir,
    SVC_INVENTORY_DIR: join(base, "inventory"),
    SVC_PLAYBOOKS_DIR: join(base, "playbooks"),
    SVC_HOST_STATE_DIR: join(base, "tries"),
    SVC_VM_CLI: VM_CLI,
    SVC_VM_DISKS_DIR: scratch.disksDir,
    SVC_VM_SSH_PUBKEY: scratch.pubKeyPath,
    SVC_VM_SSH_PRIVKEY: scratch.keyPath,
  };
  cfg = loadConfig(vars);
  downCfg = loadConfig({ ...vars, SVC_LIBVIRT_URI: "qemu:///system?socket=/tmp/svc-no-libvirt.sock" });
  ops = new Map(createHostOperators().map((o) => [o.name, o]));
}, 1_200_000);

afterAll(async () => {
  await vmPool.closeAll();
  await sharedSshPool().closeAll();
  await sshd?.stop();
  scratch?.cleanup(vm);
  release();
});

describe("host operators against a real VM on libvirt, through SSH to the host", () => {
  let sshPort = 0;
  let hostKeys: string[] = [];

  it("vm_create makes the VM with its pinned MAC and outputs its SSH endpoint", async () => {
    const { out } = await run("vm_create", { name: vm, image: "debian-test", memory_mb: 512, cpus: 1, nets: ["user"], macs: [MAC] });
    expect(out).toMatchObject({
      name: vm,
      state: "running",
      image: "debian-test",
      iso: null,
      macs: [MAC],
      memory_mb: 512,
      cpus: 1,
      ssh_host: "127.0.0.1",
      ssh_user: "root",
      ip: null,
      created: true,
    });
    sshPort = out.ssh_port;
    expect(sshPort).toBeGreaterThan(1024);
  });

  it("vm_wait_ssh fails clearly when the VM does not answer within the timeout", async () => {
    const err = await run("vm_wait_ssh", { name: vm, timeout_s: 1, interval_s: 0.5 }).catch((e) => e);
    expect(err.message).toMatch(new RegExp(`VM '${vm}' did not answer SSH on 127\\.0\\.0\\.1:${sshPort} within 1 s \\(state running\\)`));
  });

  it("vm_wait_ssh waits until SSH answers and outputs the host keys", async () => {
    const started = Date.now();
    const { out } = await run("vm_wait_ssh", { name: vm, timeout_s: 600 });
    process.stderr.write(`[measure] vm_create -> SSH answering: ~${Math.round((Date.now() - started) / 1000)} s after vm_create returned\n`);
    expect(out).toMatchObject({ name: vm, ssh_host: "127.0.0.1", ssh_port: sshPort });
    hostKeys = out.host_keys;
    expect(hostKeys[0]).toMatch(new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshPort} ssh-ed25519 `));
  });

  it("vm_create again with the same spec is an idempotent success", async () => {
    const { out } = await run("vm_create", { name: vm, image: "debian-test", memory_mb: 512, cpus: 1, nets: ["user"], macs: [MAC] });
    expect(out).toMatchObject({ name: vm, created: false, ssh_port: sshPort });
  });

  it("vm_info outputs the info JSON", async () => {
    const { out } = await run("vm_info", { name: vm });
    expect(out).toEqual({
      name: vm,
      state: "running",
      ssh_host: "127.0.0.1",
      ssh_port: sshPort,
      ssh_user: "root",
      ip: null,
      image: "debian-test",
      iso: null,
      macs: [MAC],
      // SSH's own forward: the only one this VM asked for.
      forwards: [{ proto: "tcp", guest_port: 22, host_address: "127.0.0.1", host_port: sshPort }],
      memory_mb: 512,
      cpus: 1,
      // The host the operator acted on: a single-host install's only host.
      host: "local",
    });
  });

  it("ansible_playbook changes the VM, which reads back over SSH with the pinned host key", async () => {
    const { out, ctx } = await run("ansible_playbook", { playbook: "configure.yml", vm, extra_vars: { message: "configured by svc; $(not a command)" } });
    expect(out).toMatchObject({ hosts: [vm], failed: 0, unreachable: 0, changed: 2 });
    expect(ctx.text()).toMatch(/TASK \[write the marker file\]/);
    const knownHosts = join(scratch.disksDir, "..", "vm_known_hosts");
    writeFileSync(knownHosts, `${hostKeys.join("\n")}\n`);
    const ex = new SshExecutor({ host: "127.0.0.1", port: sshPort, user: "root", keyPath: scratch.keyPath, knownHostsPath: knownHosts, connectTimeoutMs: 30_000 }, vmPool);
    const r = await ex.run(["sh", "-c", "cat /etc/svc-demo; id -un svcdemo"]);
    expect(r.stdout).toBe("configured by svc; $(not a command)\nsvcdemo\n");
    // The guest's NIC carries the MAC vm_create pinned.
    expect((await ex.run(["sh", "-c", "cat /sys/class/net/*/address"])).stdout.split("\n")).toContain(MAC);
    const again = await run("ansible_playbook", { playbook: "configure.yml", vm, extra_vars: { message: "configured by svc; $(not a command)" }, check: true });
    expect(again.out).toMatchObject({ check: true, changed: 0, failed: 0 });
  });

  it("a failing playbook fails the task and names the failing task in the log", async () => {
    const err = await run("ansible_playbook", { playbook: "broken.yml", vm }).catch((e) => e);
    expect(err.message).toMatch(
      new RegExp(`ansible-playbook broken.yml failed \\(exit 2\\): task 'this task fails on purpose' failed on ${vm}: disk layout is not what we expect`),
    );
    expect(err.log).toMatch(/ansible-playbook failed: task 'this task fails on purpose' failed on/);
    expect(err.log).toMatch(/TASK \[this step works\]/);
  });

  it("fails clearly on a missing image and a hypervisor that is down", async () => {
    const img = await run("vm_create", { name: `${vm}-x`, image: "no-such-image" }).catch((e) => e);
    expect(img).toBeInstanceOf(NonRetryableError);
    expect(img.message).toMatch(/image 'no-such-image' not found in .*; available: .*debian-test/);
    const down = await run("vm_info", { name: vm }, downCfg).catch((e) => e);
    expect(down).toBeInstanceOf(UnavailableError);
    expect(down.message).toMatch(/libvirt is not reachable .*libvirtd -d/);
  });

  it("vm_delete removes the VM; vm_info then fails as not found; a second delete notes it", async () => {
    expect((await run("vm_delete", { name: vm })).out).toEqual({ name: vm, deleted: true, host: "local" });
    const gone = await run("vm_info", { name: vm }).catch((e) => e);
    expect(gone).toBeInstanceOf(NonRetryableError);
    expect(gone.message).toBe(`VM '${vm}' does not exist`);
    expect((await run("vm_delete", { name: vm })).out).toMatchObject({ deleted: false, note: expect.stringMatching(/does not exist/) });
  });
});
