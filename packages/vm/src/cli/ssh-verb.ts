import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { defaultKeyPath, SshExecutor, SshPool } from "@svc/host";
import { VmInputError } from "../errors";
import { vmKnownHostsPath } from "../host-keys";
import type { VmSettings } from "../settings";
import type { VmDriver } from "../types";
import type { CliIo } from "./io";
import { opt, type ParsedArgs } from "./parse-args";

/** `ssh vm NAME -- cmd...`: run argv in the VM over SSH with its host key pinned. */
export async function runSshVerb(p: ParsedArgs, name: string, driver: VmDriver, settings: VmSettings, io: CliIo): Promise<number> {
  if (p.rest.length === 0) throw new VmInputError("ssh vm needs a command after --, e.g. svc-vm ssh vm NAME -- hostname");
  const info = await driver.info(name);
  if (!info.ssh_host || !info.ssh_port) throw new Error(`VM '${name}' has no SSH endpoint (state ${info.state})`);
  // The VM's own known_hosts lives beside its disks and goes away with it, so a new VM that
  // reuses the name or port never trips over a stale pinned key.
  const own = vmKnownHostsPath(settings.disksDir, name);
  const knownHostsPath = opt(p, "known-hosts") ?? (driver.name === "libvirt" && existsSync(dirname(own)) ? own : join(homedir(), ".ssh", "known_hosts"));
  const timeout = opt(p, "timeout");
  if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new VmInputError("--timeout takes whole seconds");
  const pool = new SshPool();
  const ex = new SshExecutor(
    {
      host: info.ssh_host,
      port: info.ssh_port,
      user: info.ssh_user ?? "root",
      keyPath: opt(p, "identity") ?? defaultKeyPath(),
      knownHostsPath,
      trustOnFirstUse: p.flags.has("trust-on-first-use"),
      connectTimeoutMs: 15_000,
    },
    pool,
  );
  try {
    const r = await ex.run(p.rest, { onStdout: (l) => io.out(l), onStderr: (l) => io.err(l), timeoutMs: timeout ? Number(timeout) * 1000 : undefined });
    return r.code;
  } finally {
    await pool.closeAll();
  }
}
