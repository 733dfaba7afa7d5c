import { spawnSync } from "node:child_process";
import { loadConfig } from "@svc/config";
import type { HostExecutor, RunOptions, RunResult } from "@svc/host";
import { createTestOperatorContext } from "@svc/testing";
import type { Operator, OperatorHost } from "../types";
import { jumpProxyArgv, jumpTargetSshWords, proxyCommandText, sshArgsText } from "./ansible-jump";
import { createHostOperators } from "./index";

// Host-scoped operators given the host the worker routed their try to (ctx.host): commands go
// through that host's executor with its libvirt and directories. The executors here are our own
// HostExecutor interface recording what it was asked to run (no external system is imitated).

/** A HostExecutor that records each argv and answers with `reply(argv)`. */
function recorder(target: string, reply: (argv: readonly string[]) => Partial<RunResult> = () => ({})) {
  const calls: { argv: string[]; opts?: RunOptions }[] = [];
  const ex: HostExecutor = {
    target,
    run: async (argv, opts) => (calls.push({ argv: [...argv], opts }), { code: 0, stdout: "", stderr: "", ...reply(argv) }),
    close: async () => undefined,
  };
  return { ex, calls };
}

const VM_JSON = JSON.stringify({
  name: "web1",
  state: "running",
  image: "alpha",
  memory_mb: 512,
  cpus: 1,
  ip: null,
  ssh_host: "127.0.0.1",
  ssh_port: 2222,
  ssh_user: "root",
  created: true,
});
const cfg = loadConfig({
  SVC_SSH_HOST: "127.0.0.1",
  SVC_VM_IMAGES_DIR: "/conf/images",
  SVC_VM_DISKS_DIR: "/conf/vms",
  SVC_LIBVIRT_URI: "qemu:///conf",
  SVC_HOST_STATE_DIR: "/conf/tries",
});
const jump = { user: "root", address: "10.0.0.12", port: 2200, keyPath: "/keys/lab 2'%x", knownHostsPath: "/run/svc/kh-lab2" };

/** The routed host lab2, answering as a VM CLI and a host would. */
function setupHost(): OperatorHost {
  const routed = recorder("root@10.0.0.12:2200", (argv) => ({ stdout: argv[0] === "svc-vm" && argv[1] === "delete" ? JSON.stringify({ name: "web1", deleted: true }) : VM_JSON }));
  return { name: "lab2", executor: routed.ex, libvirtUri: "qemu+ssh://x/system", disksDir: "/lab2/vms", imagesDir: "/lab2/images", jump };
}

function setup() {
  const routed = recorder("root@10.0.0.12:2200", (argv) => ({
    stdout: argv[0] === "ssh-keyscan" || argv[2]?.includes("ssh-keyscan") ? "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey\n" : VM_JSON,
  }));
  const configured = recorder("root@127.0.0.1:22", () => ({ stdout: VM_JSON }));
  const host: OperatorHost = { name: "lab2", executor: routed.ex, libvirtUri: "qemu+ssh://x/system", disksDir: "/lab2/vms", imagesDir: "/lab2/images", jump };
  const ops = new Map(createHostOperators({ executor: () => configured.ex }).map((o) => [o.name, o]));
  const run = async (name: string, args: Record<string, unknown>, withHost: boolean) => {
    const op = ops.get(name)!;
    const ctx = { ...createTestOperatorContext(cfg, name), ...(withHost ? { host } : {}) };
    await op.run(op.args.parse(args), ctx);
    return ctx;
  };
  return { routed, configured, ops, run };
}

test("vm_create with ctx.host runs the VM CLI through the host's executor with the host's --uri, --disks-dir and --images-dir, and logs the host", async () => {
  const { routed, configured, run } = setup();
  const ctx = await run("vm_create", { name: "web1", image: "alpha", host: "lab2" }, true);
  expect(configured.calls).toEqual([]);
  const argv = routed.calls[0]!.argv;
  expect(argv.slice(0, 3)).toEqual(["svc-vm", "create", "vm"]);
  expect(argv.slice(-10)).toEqual(["--images-dir", "/lab2/images", "--driver", cfg.vm.driver, "--disks-dir", "/lab2/vms", "--uri", "qemu+ssh://x/system", "-o", "json"]);
  expect(argv.join(" ")).not.toMatch(/\/conf\/|qemu:\/\/\/conf/);
  expect(ctx.text()).toContain("on host lab2 (root@10.0.0.12:2200, libvirt qemu+ssh://x/system)");
  expect(ctx.text()).toContain("creating VM web1 from image alpha on host lab2 (root@10.0.0.12:2200)");
});

test("without ctx.host vm_create runs exactly as before: the configured executor, --uri and --disks-dir from the settings, no host line", async () => {
  const { routed, configured, run } = setup();
  const ctx = await run("vm_create", { name: "web1", image: "alpha" }, false);
  expect(routed.calls).toEqual([]);
  expect(configured.calls[0]!.argv.slice(-10)).toEqual([
    "--images-dir",
    "/conf/images",
    "--driver",
    cfg.vm.driver,
    "--disks-dir",
    "/conf/vms",
    "--uri",
    "qemu:///conf",
    "-o",
    "json",
  ]);
  expect(ctx.text()).not.toMatch(/on host /);
  expect(ctx.text()).toContain("creating VM web1 from image alpha on root@127.0.0.1:22");
});

test("vm_delete, vm_info, vm_wait_ssh, ssh and host_check with ctx.host act through the host's executor only, with its directories", async () => {
  const { routed, configured, run } = setup();
  await run("vm_delete", { name: "web1" }, true);
  await run("vm_info", { name: "web1" }, true);
  await run("vm_wait_ssh", { name: "web1" }, true);
  await run("ssh", { argv: ["uptime"] }, true);
  await run("host_check", {}, true);
  expect(configured.calls).toEqual([]);
  const vmCalls = routed.calls.filter((c) => c.argv[0] === "svc-vm").map((c) => c.argv);
  expect(vmCalls.map((a) => a.slice(1, 3))).toEqual([
    ["delete", "vm"],
    ["info", "vm"],
    ["info", "vm"],
  ]);
  // vm_wait_ssh scans the VM's forward from the routed host and pins its keys beside the VM's disks there.
  expect(routed.calls.some((c) => c.argv[2]?.includes("ssh-keyscan") && c.argv.slice(5, 7).join(" ") === "127.0.0.1 2222")).toBe(true);
  expect(routed.calls.some((c) => c.argv[0] === "sh" && c.argv.includes("/lab2/vms/web1"))).toBe(true);
  for (const a of vmCalls) expect(a.slice(a.indexOf("--disks-dir"), a.indexOf("--disks-dir") + 4)).toEqual(["--disks-dir", "/lab2/vms", "--uri", "qemu+ssh://x/system"]);
  expect(routed.calls.some((c) => c.argv[0] === "uptime")).toBe(true);
  // host_check asks the routed host's libvirt, and measures its images directory.
  const probe = routed.calls.find((c) => c.argv[0] === "sh" && c.argv[2]!.includes("virsh --connect"))!;
  expect(probe.argv.slice(5, 6)).toEqual(["qemu+ssh://x/system"]);
  expect(probe.argv.slice(-3)).toEqual(["/lab2/images", "/lab2", "/"]);
});

test("vm_create, vm_info, vm_delete and host_check output the host they acted on: the routed one, else local; host_check takes the VM it places", async () => {
  const { ops } = setup();
  const out = async (name: string, args: Record<string, unknown>, withHost: boolean) => {
    const op = ops.get(name)!;
    const ctx = { ...createTestOperatorContext(cfg, name), ...(withHost ? { host: setupHost() } : {}) };
    return (await op.run(op.args.parse(args), ctx)) as Record<string, unknown>;
  };
  const place = { name: "lab-router", image: "alpha", memory_mb: 3584, cpus: 7, disks_gb: [4, 4] };
  for (const [name, args] of [
    ["vm_create", { name: "web1", image: "alpha" }],
    ["vm_info", { name: "web1" }],
    ["vm_delete", { name: "web1" }],
    ["host_check", { place }],
  ] as const) {
    expect({ name, host: (await out(name, args, true)).host }).toEqual({ name, host: "lab2" });
    expect({ name, host: (await out(name, args, false)).host }).toEqual({ name, host: "local" });
  }
  expect(ops.get("host_check")!.args.safeParse({ place: { ...place, name: "Bad_Name" } }).success).toBe(false);
});

test("every operator acting on the hypervisor host is host-scoped and takes an optional host arg with the inventory's name rule", () => {
  const { ops } = setup();
  const scoped = [...ops.values()].filter((o: Operator) => o.hostScoped).map((o) => o.name);
  expect(scoped.sort()).toEqual(["ansible_playbook", "host_check", "ssh", "vm_create", "vm_delete", "vm_info", "vm_wait_ssh"]);
  expect(ops.get("http_check")!.hostScoped).toBeUndefined();
  const base: Record<string, Record<string, unknown>> = { vm_create: { name: "v", image: "i" }, ansible_playbook: { playbook: "p.yml", on_host: true }, ssh: { argv: ["true"] } };
  for (const name of scoped) {
    const schema = ops.get(name)!.args;
    const args = base[name] ?? { name: "v" };
    expect(schema.safeParse({ ...args, host: "lab-2" }).success).toBe(true);
    for (const bad of ["Lab2", "-lab", "lab_2", "a".repeat(64), "lab2;id"]) expect(schema.safeParse({ ...args, host: bad }).success).toBe(false);
  }
});

test("the jump to a routed host is built as argv: ProxyCommand words quoted once with % doubled, ansible's ssh args quoted for shlex", () => {
  const argv = jumpProxyArgv(jump, "/tmp/run dir/jump_known_hosts");
  expect(argv).toEqual([
    "ssh",
    "-F",
    "/dev/null",
    "-i",
    "/keys/lab 2'%x",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "UserKnownHostsFile=/tmp/run dir/jump_known_hosts",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=10",
    "-p",
    "2200",
    "-l",
    "root",
    "-W",
    "%h:%p",
    "--",
    "10.0.0.12",
  ]);
  // What ssh does with a ProxyCommand: expand %h/%p/%%, then run the text with sh. The words arrive intact.
  const text = proxyCommandText(argv).replace(/%h|%p|%%/g, (m) => (m === "%h" ? "127.0.0.1" : m === "%p" ? "2222" : "%"));
  const echoed = spawnSync("sh", ["-c", `printf '%s\\n' ${text.replace(/^'ssh'/, "")}`], { encoding: "utf8" })
    .stdout.split("\n")
    .slice(0, -1);
  expect(echoed).toEqual(argv.slice(1).map((w) => (w === "%h:%p" ? "127.0.0.1:2222" : w)));
  // Ansible splits ansible_ssh_common_args with Python's shlex: the same words come out.
  const words = jumpTargetSshWords(jump, "/inv/known_hosts", "/inv/jump_known_hosts");
  const split = spawnSync("python3", ["-c", "import json, shlex, sys; print(json.dumps(shlex.split(sys.stdin.read())))"], { input: sshArgsText(words), encoding: "utf8" });
  expect(JSON.parse(split.stdout)).toEqual(words);
  // Ansible strips quotes around the whole string before splitting: it must start with a bare word.
  expect(sshArgsText(words)).toMatch(/^-o UserKnownHostsFile=\/inv\/known_hosts -o /);
  expect(words.at(-1)).toBe(`ProxyCommand=${proxyCommandText(jumpProxyArgv(jump, "/inv/jump_known_hosts"))}`);
});
