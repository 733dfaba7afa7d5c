import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostKeyName, parseKnownHosts, SshExecutor, SshPool, type HostExecutor } from "@svc/host";
import { NonRetryableError } from "@svc/errors";
import type { HostRecord } from "./types";

/** Where and how to reach a host: the connection fields of a host record. */
export type HostTarget = Pick<HostRecord, "name" | "ssh_user" | "address" | "port" | "key_path">;

/** An executor whose own known_hosts holds only this host's pinned keys; close() removes it. */
export interface PinnedExecutor extends HostExecutor {
  readonly host: string;
  /** The private known_hosts holding only this host's pinned keys (for an ssh client that jumps through it). */
  readonly knownHostsPath: string;
}

const CONNECT_MS = 10_000;

function privateDir(): string {
  return mkdtempSync(join(tmpdir(), "svc-hosts-"));
}

/**
 * An SSH executor for a host of the inventory, checking the host key against the keys pinned in
 * its row (never ~/.ssh/known_hosts, never trust on first use). Refused when none is pinned.
 */
export function hostExecutor(h: HostTarget & Pick<HostRecord, "host_key">, connectTimeoutMs = CONNECT_MS): PinnedExecutor {
  if (!h.host_key) throw new NonRetryableError(`host '${h.name}' has no pinned host key: svc-hosts pin ${h.name}`);
  const dir = privateDir();
  const knownHostsPath = join(dir, "known_hosts");
  const name = hostKeyName(h.address, h.port);
  writeFileSync(
    knownHostsPath,
    h.host_key
      .split("\n")
      .map((l) => `${name} ${l}\n`)
      .join(""),
    { mode: 0o600 },
  );
  const pool = new SshPool({ idleCloseMs: 5000 });
  const ex = new SshExecutor({ host: h.address, port: h.port, user: h.ssh_user, keyPath: h.key_path, knownHostsPath, connectTimeoutMs }, pool);
  return {
    host: h.name,
    knownHostsPath,
    target: ex.target,
    run: (argv, o) => ex.run(argv, o),
    close: async () => {
      await ex.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Connect once with trust on first use into a private known_hosts, run `true`, and return the key
 * the host presented (`type base64`). The operator's act of adding the host is what trusts it.
 */
export async function firstContactKey(h: HostTarget, connectTimeoutMs = CONNECT_MS): Promise<string> {
  const dir = privateDir();
  const knownHostsPath = join(dir, "known_hosts");
  const pool = new SshPool({ idleCloseMs: 1000 });
  const ex = new SshExecutor({ host: h.address, port: h.port, user: h.ssh_user, keyPath: h.key_path, knownHostsPath, trustOnFirstUse: true, connectTimeoutMs }, pool);
  try {
    const r = await ex.run(["true"], { timeoutMs: 30_000 });
    if (r.code !== 0) throw new NonRetryableError(`host '${h.name}': 'true' exited ${r.code} over SSH: ${r.stderr.trim().slice(0, 200)}`);
    const entries = parseKnownHosts(readFileSync(knownHostsPath, "utf8"));
    if (entries.length === 0) throw new NonRetryableError(`host '${h.name}': no host key was recorded`);
    return entries.map((e) => `${e.keyType} ${e.key}`).join("\n");
  } finally {
    await ex.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
