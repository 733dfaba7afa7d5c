import { statSync } from "node:fs";
import type { SvcConfig } from "./config";
import { ConfigError } from "./config";
import { resolveSshFiles } from "./ssh-files";

/** A file whose contents svc trusts (a key, a password): the setting that names it and its path. */
export interface TrustedFile {
  setting: string;
  path: string;
}

/**
 * The secret files a service that reaches the hosts reads or hands to ssh and ansible: the SSH key
 * (configured, or the default ~/.ssh one), the VM key, the vault password file, the secrets file.
 */
export function trustedFilesOf(config: SvcConfig, home?: string): TrustedFile[] {
  return [
    { setting: "SVC_SSH_KEY_PATH", path: resolveSshFiles(config.ssh, home).keyPath },
    ...(config.vm.sshPrivkey ? [{ setting: "SVC_VM_SSH_PRIVKEY", path: config.vm.sshPrivkey }] : []),
    ...(config.vaultPasswordFile ? [{ setting: "SVC_VAULT_PASSWORD_FILE", path: config.vaultPasswordFile }] : []),
    { setting: "SVC_SECRETS_FILE", path: config.secretsFile },
  ];
}

/** Who the process is (defaults: this process). */
export interface FileCheckIdentity {
  uid: number;
  groups: readonly number[];
}

const shellWord = (p: string) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/**
 * Refuse, at start, a trusted file that anyone but its owner may read or write (as OpenSSH refuses
 * such a key): one ConfigError naming each file, its mode and the chmod that fixes it. A file that
 * does not exist here (it may live on the host only) is left to the code that uses it. One case
 * is accepted: a file owned by root that only its group may read, the group being one of this
 * process's (a Kubernetes secret volume mounted with fsGroup).
 */
export function assertTrustedFileModes(files: readonly TrustedFile[], who: FileCheckIdentity = currentIdentity()): void {
  const problems: string[] = [];
  for (const f of files) {
    let st;
    try {
      st = statSync(f.path);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const open = st.mode & 0o077;
    if (open === 0) continue;
    const secretVolume = st.uid === 0 && who.uid !== 0 && (st.mode & 0o037) === 0 && who.groups.includes(st.gid);
    if (secretVolume) continue;
    const mode = (st.mode & 0o777).toString(8).padStart(4, "0");
    problems.push(`${f.setting}: ${f.path} is open to others than its owner (mode ${mode}); it must be readable by its owner only: chmod 600 ${shellWord(f.path)}`);
  }
  if (problems.length) throw new ConfigError(problems);
}

function currentIdentity(): FileCheckIdentity {
  const gid = process.getgid?.() ?? -1;
  return { uid: process.getuid?.() ?? -1, groups: [gid, ...(process.getgroups?.() ?? [])] };
}

/** The start-up check of the services that reach the hosts: trustedFilesOf(config), owner-only. */
export function assertTrustedFiles(config: SvcConfig): void {
  assertTrustedFileModes(trustedFilesOf(config));
}
