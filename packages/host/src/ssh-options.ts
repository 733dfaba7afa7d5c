import { userInfo } from "node:os";
import { resolveSshFiles, type SvcConfig } from "@svc/config";

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

export { defaultKeyPath } from "@svc/config";

/** SSH options for the configured host (SVC_SSH_*), with per-call overrides. */
export function sshOptionsFromConfig(config: Pick<SvcConfig, "ssh">, overrides: Partial<SshOptions> = {}): SshOptions {
  const s = config.ssh;
  const files = resolveSshFiles(s);
  return {
    host: s.host,
    port: s.port,
    user: s.user || safeUser(),
    keyPath: files.keyPath,
    knownHostsPath: files.knownHostsPath,
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
