import { existsSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { join } from "node:path";
import type { SvcConfig } from "@svc/config";

/** Where and how to reach a host over SSH. */
export interface SshOptions {
  host: string;
  port: number;
  user: string;
  /** Private key file; the key is read at connect time and never logged. */
  keyPath?: string;
  /** known_hosts file that pins host keys (default ~/.ssh/known_hosts). */
  knownHostsPath: string;
  /** Pin an unknown host key on first use (writes known_hosts). A changed key still fails. */
  trustOnFirstUse?: boolean;
  /** TCP connect + handshake + auth limit (default 10 s). */
  connectTimeoutMs?: number;
}

/** Default key files tried, in order, when no key path is configured (as ssh does). */
export function defaultKeyPath(home = homedir()): string | undefined {
  return ["id_ed25519", "id_ecdsa", "id_rsa"].map((f) => join(home, ".ssh", f)).find((p) => existsSync(p));
}

/** SSH options for the configured host (SVC_SSH_*), with per-call overrides. */
export function sshOptionsFromConfig(config: Pick<SvcConfig, "ssh">, overrides: Partial<SshOptions> = {}): SshOptions {
  const s = config.ssh;
  return {
    host: s.host,
    port: s.port,
    user: s.user || safeUser(),
    keyPath: s.keyPath ?? defaultKeyPath(),
    knownHostsPath: s.knownHostsPath ?? join(homedir(), ".ssh", "known_hosts"),
    ...overrides,
  };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "root";
  }
}

/** `user@host:port`, for messages and pool keys. */
export function sshTarget(o: Pick<SshOptions, "host" | "port" | "user">): string {
  return `${o.user}@${o.host}:${o.port}`;
}
