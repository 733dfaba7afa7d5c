import { join } from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import type { TestSshd } from "@svc/testing";

/** The config of the operator tests that reach a test sshd: its host settings, with playbooks, inventory and fence state under `dir`. */
export function sshdTestConfig(sshd: TestSshd, dir: string, extra: Record<string, string> = {}): SvcConfig {
  return loadConfig({
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_USER: sshd.user,
    SVC_SSH_KEY_PATH: sshd.keyPath,
    SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
    SVC_PLAYBOOKS_DIR: dir,
    SVC_INVENTORY_DIR: join(dir, "inv"),
    SVC_HOST_STATE_DIR: join(dir, "tries"),
    ...extra,
  });
}
