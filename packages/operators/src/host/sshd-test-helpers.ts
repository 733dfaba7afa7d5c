import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { sharedSshPool } from "@svc/host";
import { startSshd, type TestSshd } from "@svc/testing";
import { createHostOperators } from "./index";
import type { Operator } from "../types";

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

/** What a playbook test file runs against: a test sshd, a scratch directory and the ansible_playbook operator. */
export interface PlaybookTarget {
  sshd: TestSshd;
  dir: string;
  op: Operator;
}

/**
 * The file's playbook target, ready in its first beforeAll (register the file's own set-up after
 * this call) and stopped and removed after its tests.
 */
export function playbookTarget(prefix: string): PlaybookTarget {
  const t = {} as PlaybookTarget;
  beforeAll(async () => {
    t.sshd = await startSshd();
    t.dir = mkdtempSync(join(tmpdir(), prefix));
    t.op = createHostOperators().find((o) => o.name === "ansible_playbook")!;
  }, 60_000);
  afterAll(async () => {
    await sharedSshPool().closeAll();
    await t.sshd?.stop();
    if (t.dir) rmSync(t.dir, { recursive: true, force: true });
  });
  return t;
}
