import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitFor } from "../ports";
import { testSshdConfig } from "./sshd-config";

/** A private sshd on 127.0.0.1 with its own host key, client key and known_hosts. */
export interface TestSshd {
  port: number;
  host: string;
  user: string;
  /** Client private key accepted for `user`. */
  keyPath: string;
  /** known_hosts with this sshd's host key pinned as `[127.0.0.1]:port`. */
  knownHostsPath: string;
  /** The host public key line (`ssh-ed25519 AAAA...`). */
  hostPublicKey: string;
  dir: string;
  stop(): Promise<void>;
}

/** Options of startSshd. */
export interface StartSshdOptions {
  /** Login user (default root). A non-root user is created when missing and removed on stop. */
  user?: string;
  /** Give a non-root user passwordless sudo (non-root mode); the rule is removed on stop. */
  sudo?: boolean;
  /** sshd's MaxSessions: channels one connection may hold (default 10, OpenSSH's). */
  maxSessions?: number;
}

function sh(argv: string[]): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv[0]} failed: ${r.stderr || r.error}`);
  return r.stdout;
}

/** Start sshd on a spare port (root only: sshd needs it); stop() kills it and removes everything it made. */
export async function startSshd(opts: StartSshdOptions = {}): Promise<TestSshd> {
  const user = opts.user ?? "root";
  const dir = mkdtempSync(join(tmpdir(), "svc-sshd-"));
  // sshd reads authorized_keys as the login user: the directory must be traversable.
  chmodSync(dir, 0o755);
  const cleanups: (() => void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  let child: ChildProcess | undefined;
  try {
    if (user !== "root") cleanups.push(ensureUser(user, opts.sudo ?? false));
    sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "svc-test-host", "-f", join(dir, "host_ed25519")]);
    sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "svc-test-client", "-f", join(dir, "client_ed25519")]);
    writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_ed25519.pub")), { mode: 0o644 });
    chmodSync(join(dir, "authorized_keys"), 0o644);
    const port = await freePort();
    const hostPublicKey = readFileSync(join(dir, "host_ed25519.pub"), "utf8").trim().split(/\s+/).slice(0, 2).join(" ");
    writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostPublicKey}\n`, { mode: 0o600 });
    writeFileSync(
      join(dir, "sshd_config"),
      testSshdConfig({
        port,
        listen: ["127.0.0.1"],
        hostKey: join(dir, "host_ed25519"),
        pidFile: join(dir, "sshd.pid"),
        authorizedKeys: join(dir, "authorized_keys"),
        user,
        maxSessions: opts.maxSessions ?? 10,
      }),
    );
    spawnSync("mkdir", ["-p", "/run/sshd"]);
    child = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const proc = child;
    await waitFor(
      () => {
        if (proc.exitCode !== null) throw new Error(`sshd exited: ${stderr}`);
        return canConnect(port);
      },
      { timeoutMs: 10_000, what: "test sshd" },
    );
    return {
      port,
      host: "127.0.0.1",
      user,
      keyPath: join(dir, "client_ed25519"),
      knownHostsPath: join(dir, "known_hosts"),
      hostPublicKey,
      dir,
      stop: async () => {
        await killAndWait(proc);
        for (const c of cleanups.reverse()) c();
      },
    };
  } catch (e) {
    if (child) await killAndWait(child);
    for (const c of cleanups.reverse()) c();
    throw e;
  }
}

/** Create `user` when missing (and give it NOPASSWD sudo when asked); returns the undo. */
function ensureUser(user: string, sudo: boolean): () => void {
  if (!/^[a-z][a-z0-9-]{0,30}$/.test(user)) throw new Error(`bad test user name ${user}`);
  const exists = spawnSync("id", ["-u", user]).status === 0;
  if (!exists) {
    sh(["useradd", "--create-home", "--shell", "/bin/bash", user]);
    // '*' = no password but not locked, so key login works with UsePAM no.
    sh(["usermod", "-p", "*", user]);
  }
  const sudoers = `/etc/sudoers.d/svc-test-${user}`;
  if (sudo) writeFileSync(sudoers, `${user} ALL=(ALL) NOPASSWD: ALL\n`, { mode: 0o440 });
  return () => {
    if (sudo) rmSync(sudoers, { force: true });
    if (!exists) spawnSync("userdel", ["--remove", user], { stdio: "ignore" });
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await done;
}
