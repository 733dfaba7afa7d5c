import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The env the svc-hosts and svc-vm CLIs run with in tests: this database, SSH to 127.0.0.1 as tester, the files in dir. */
export function cliTestEnv(dbUrl: string, dir: string, sshKey = "vm_key"): Record<string, string> {
  return {
    DATABASE_URL: dbUrl,
    USER: "tester",
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_USER: "tester",
    SVC_SSH_KEY_PATH: join(dir, sshKey),
    SVC_SSH_KNOWN_HOSTS: join(dir, "known_hosts"),
    SVC_VM_SSH_PRIVKEY: join(dir, "vm_key"),
    SVC_SECRETS_FILE: join(dir, "secrets.yml"),
  };
}

/** dir/secrets.yml holding this YAML, encrypted with ansible-vault under dir/vault.pass. */
export function writeVaultedSecrets(dir: string, yaml: string): void {
  writeFileSync(join(dir, "vault.pass"), "test vault password\n");
  writeFileSync(join(dir, "secrets.yml"), yaml);
  execFileSync("ansible-vault", ["encrypt", "--vault-password-file", join(dir, "vault.pass"), join(dir, "secrets.yml")], { stdio: "pipe" });
}
