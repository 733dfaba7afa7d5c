import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertTrustedFiles, ConfigError, loadConfig } from "./index";
import { assertTrustedFileModes, trustedFilesOf } from "./trusted-files";

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "svc-trusted-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, mode: number) => {
  const p = join(dir, name);
  writeFileSync(p, "secret\n");
  chmodSync(p, mode);
  return p;
};
const problemsOf = (f: () => void): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

test("a key, vault password or secrets file that its group or others may read stops the start, naming each file and the chmod that fixes it", () => {
  const key = file("id_key", 0o644);
  const vault = file("vault password", 0o640);
  const secrets = file("secrets.yml", 0o604);
  const config = loadConfig({ SVC_SSH_KEY_PATH: key, SVC_VAULT_PASSWORD_FILE: vault, SVC_SECRETS_FILE: secrets });
  expect(problemsOf(() => assertTrustedFiles(config))).toEqual([
    `SVC_SSH_KEY_PATH: ${key} is open to others than its owner (mode 0644); it must be readable by its owner only: chmod 600 ${key}`,
    `SVC_VAULT_PASSWORD_FILE: ${vault} is open to others than its owner (mode 0640); it must be readable by its owner only: chmod 600 '${vault}'`,
    `SVC_SECRETS_FILE: ${secrets} is open to others than its owner (mode 0604); it must be readable by its owner only: chmod 600 ${secrets}`,
  ]);
});

test("owner-only files (0600, 0400) pass, and files that do not exist here keep today's behaviour", () => {
  const config = loadConfig({
    SVC_SSH_KEY_PATH: file("ok_key", 0o600),
    SVC_VM_SSH_PRIVKEY: file("vm_key", 0o400),
    SVC_VAULT_PASSWORD_FILE: join(dir, "missing-vault"),
    SVC_INVENTORY_DIR: join(dir, "no-inventory"),
  });
  expect(trustedFilesOf(config).map((f) => f.setting)).toEqual(["SVC_SSH_KEY_PATH", "SVC_VM_SSH_PRIVKEY", "SVC_VAULT_PASSWORD_FILE", "SVC_SECRETS_FILE"]);
  expect(() => assertTrustedFiles(config)).not.toThrow();
});

test("without SVC_SSH_KEY_PATH the default key of the home directory is the one checked", () => {
  const home = mkdtempSync(join(dir, "home-"));
  mkdirSync(join(home, ".ssh"));
  const key = join(home, ".ssh", "id_ed25519");
  writeFileSync(key, "k");
  chmodSync(key, 0o660);
  expect(problemsOf(() => assertTrustedFileModes(trustedFilesOf(loadConfig({}), home)))).toEqual([
    `SVC_SSH_KEY_PATH: ${key} is open to others than its owner (mode 0660); it must be readable by its owner only: chmod 600 ${key}`,
  ]);
});

test("a root-owned file only its group may read passes for a non-root process of that group (a Kubernetes secret volume with fsGroup), not for its owner", () => {
  const p = file("fsgroup_key", 0o440);
  const files = [{ setting: "SVC_SSH_KEY_PATH", path: p }];
  // The file is root's (this test runs as root, or the owner check below applies to the runner).
  const st = statSync(p);
  if (st.uid === 0) expect(() => assertTrustedFileModes(files, { uid: 1000, groups: [st.gid] })).not.toThrow();
  expect(problemsOf(() => assertTrustedFileModes(files, { uid: st.uid, groups: [st.gid] }))).toHaveLength(1);
  expect(problemsOf(() => assertTrustedFileModes(files, { uid: st.uid + 1, groups: [st.gid + 1] }))).toHaveLength(1);
  chmodSync(p, 0o460);
  expect(problemsOf(() => assertTrustedFileModes(files, { uid: st.uid + 1, groups: [st.gid] }))).toHaveLength(1);
});
