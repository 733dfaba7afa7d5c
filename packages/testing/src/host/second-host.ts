import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from "node:child_process";
import { rmSync } from "node:fs";
import net from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { waitFor } from "../ports";
import { prepareHostFiles, type HostFiles } from "./second-host-files";

const SCRIPT = resolve(__dirname, "second-host.sh");
const VM_CLI = resolve(__dirname, "../../../vm/bin/svc-vm");
/** Where the holder keeps libvirt's qemu capabilities between runs (probing them takes 8 s under TCG). */
const CACHE = process.env.SVC_TEST_HOST_CACHE ?? "/var/cache/svc/test-host/libvirt";

/**
 * An extra hypervisor host on this machine: its own virtlogd and libvirtd (qemu:///system) in a
 * private mount namespace, reached over its own sshd on 127.0.0.1 that runs in the same namespace.
 */
export interface SecondHost {
  name: string;
  user: string;
  address: string;
  port: number;
  /** `user@127.0.0.1:port`, as `svc-hosts add --ssh` takes it. */
  sshTarget: string;
  /** The client private key this host's sshd accepts (generated for it). */
  keyPath: string;
  /** known_hosts with this host's key pinned as `[127.0.0.1]:port`. */
  knownHostsPath: string;
  /** The host public key (`ssh-ed25519 AAAA...`), as `svc-hosts add --host-key` takes it. */
  hostKey: string;
  libvirtUri: string;
  imagesDir: string;
  disksDir: string;
  /** The VM CLI of this checkout as argv (SVC_VM_CLI for the hosts of a test). */
  vmCli: string[];
  /** Everything the host owns (keys, its libvirt state, images, disks, logs); removed by stop(). */
  dir: string;
  /** Arguments of `svc-hosts add` for this host (the key is pinned on first contact, as an operator's add does). */
  addArgs(): string[];
  /** Run argv inside the host's namespace, without SSH (set-up and assertions). */
  exec(argv: string[]): SpawnSyncReturns<string>;
  /** `virsh --connect qemu:///system ARGS` on this host; throws on a non-zero exit. */
  virsh(...args: string[]): string;
  /** Names of every domain this host's libvirtd has. */
  domains(): string[];
  /** Kill sshd and its sessions: the host is down for SSH, its libvirt and VMs go on. */
  stopSshd(): Promise<void>;
  /** Start sshd again: same port, same keys. */
  startSshd(): Promise<void>;
  /** Destroy and undefine every domain of its libvirtd, stop its daemons, remove its directory. */
  stop(): Promise<void>;
}

/** Options of startSecondHost. */
export interface StartSecondHostOptions {
  /** The host's name in the inventory (default "b"). */
  name?: string;
  /** Images of TEST_IMAGES_DIR hard-linked (or copied) into its images directory (default: the test image, when built). */
  images?: string[];
}

const canConnect = (port: number) =>
  new Promise<boolean>((ok) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), ok(true)));
    s.once("error", () => ok(false));
  });

/**
 * Start an extra libvirt host reached over SSH on 127.0.0.1 (root only; under a second): see
 * second-host.sh. Call it again for a third host. If the test process dies, the holder sees its
 * stdin close and tears the host down itself; stop() still has to remove the directory.
 */
export async function startSecondHost(opts: StartSecondHostOptions = {}): Promise<SecondHost> {
  const name = opts.name ?? "b";
  let files: HostFiles | undefined;
  let holder: ChildProcess | undefined;
  try {
    const f = await prepareHostFiles(name, opts.images);
    files = f;
    const { dir, port } = f;
    const proc = spawn("unshare", ["--mount", "--propagation", "private", "--", "bash", SCRIPT, dir, CACHE], { stdio: ["pipe", "pipe", "pipe"] });
    holder = proc;
    let stderr = "";
    proc.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<void>((r) => proc.once("exit", () => r()));
    const waiting: ((line: string) => void)[] = [];
    createInterface({ input: proc.stdout }).on("line", (l) => waiting.shift()?.(l));
    const reply = (timeoutMs: number) =>
      new Promise<string>((ok, fail) => {
        const t = setTimeout(() => fail(new Error(`test host ${name}: no answer in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
        waiting.push((l) => (clearTimeout(t), ok(l)));
        void exited.then(() => (clearTimeout(t), fail(new Error(`test host ${name} exited: ${stderr}`))));
      });
    const command = async (cmd: string) => {
      const answer = reply(30_000);
      proc.stdin.write(`${cmd}\n`);
      await answer;
    };
    await reply(90_000);
    await waitFor(() => canConnect(port), { timeoutMs: 10_000, what: `sshd of test host ${name}` });

    const exec = (argv: string[]) => spawnSync("nsenter", ["--target", String(proc.pid), "--mount", "--", ...argv], { encoding: "utf8", timeout: 120_000 });
    const virsh = (...args: string[]) => {
      const r = exec(["virsh", "--connect", "qemu:///system", ...args]);
      if (r.status !== 0) throw new Error(`virsh ${args.join(" ")} on test host ${name}: ${r.stderr || String(r.error)}`);
      return r.stdout;
    };
    const user = "root";
    return {
      name,
      user,
      address: "127.0.0.1",
      port,
      sshTarget: `${user}@127.0.0.1:${port}`,
      keyPath: f.keyPath,
      knownHostsPath: f.knownHostsPath,
      hostKey: f.hostKey,
      libvirtUri: "qemu:///system",
      imagesDir: f.imagesDir,
      disksDir: f.disksDir,
      vmCli: [process.execPath, VM_CLI],
      dir,
      addArgs: () => [
        "add",
        name,
        "--ssh",
        `${user}@127.0.0.1:${port}`,
        "--key",
        f.keyPath,
        "--libvirt-uri",
        "qemu:///system",
        "--images-dir",
        f.imagesDir,
        "--disks-dir",
        f.disksDir,
      ],
      exec,
      virsh,
      domains: () =>
        virsh("list", "--all", "--name")
          .split("\n")
          .map((s) => s.trim())
          .filter(Boolean),
      stopSshd: async () => {
        await command("sshd-stop");
        await waitFor(async () => !(await canConnect(port)), { timeoutMs: 10_000, what: `sshd of test host ${name} to stop` });
      },
      startSshd: async () => {
        await command("sshd-start");
        await waitFor(() => canConnect(port), { timeoutMs: 10_000, what: `sshd of test host ${name}` });
      },
      stop: async () => {
        if (proc.exitCode === null && proc.signalCode === null) {
          proc.stdin.end();
          const killer = setTimeout(() => proc.kill("SIGKILL"), 120_000);
          await exited;
          clearTimeout(killer);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    if (holder && holder.exitCode === null) {
      const h = holder;
      const gone = new Promise((r) => h.once("exit", r));
      h.stdin!.end();
      await gone;
    }
    if (files) rmSync(files.dir, { recursive: true, force: true });
    throw e;
  }
}
