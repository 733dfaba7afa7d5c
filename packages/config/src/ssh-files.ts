import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { SvcConfig } from "./config";

/** Key files tried, in order, when no key path is configured (as ssh does). */
const KEY_FILES = ["id_ed25519", "id_ecdsa", "id_rsa"] as const;

/** The first existing default private key of `home`, if any. */
export function defaultKeyPath(home = homedir()): string | undefined {
  return KEY_FILES.map((f) => join(home, ".ssh", f)).find((p) => existsSync(p));
}

/**
 * The SSH files the services use to reach the host: the configured key, else the first existing
 * ~/.ssh/id_{ed25519,ecdsa,rsa}, else ~/.ssh/id_ed25519 (where host preparation generates one);
 * the configured known_hosts, else ~/.ssh/known_hosts. The host scripts read these through
 * `svc-config`, so the key they authorize and the host key they pin are the ones the workers use.
 */
export function resolveSshFiles(ssh: SvcConfig["ssh"], home = homedir()): { keyPath: string; knownHostsPath: string; keyConfigured: boolean } {
  return {
    keyPath: ssh.keyPath ?? defaultKeyPath(home) ?? join(home, ".ssh", "id_ed25519"),
    knownHostsPath: ssh.knownHostsPath ?? join(home, ".ssh", "known_hosts"),
    keyConfigured: ssh.keyPath !== undefined,
  };
}
