import { assertVmName } from "./names";

/**
 * The cloud-init user data of a cloud instance: its hostname and the login svc uses, with the given
 * public keys and passwordless sudo. Nothing else: user data is readable by anyone on the instance
 * (and by whoever may describe it), so it never carries a secret.
 */
export function cloudInitUserData(o: { hostname: string; user: string; sshKeys: readonly string[] }): string {
  assertVmName(o.hostname);
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(o.user)) throw new Error(`'${o.user}' is not a login name`);
  for (const k of o.sshKeys) if (!/^[a-z0-9@.-]+ [A-Za-z0-9+/]+={0,3}( [^\n\r]*)?$/.test(k.trim())) throw new Error("an SSH public key is one authorized_keys line");
  const q = (s: string) => JSON.stringify(s);
  return [
    "#cloud-config",
    `hostname: ${q(o.hostname)}`,
    `fqdn: ${q(o.hostname)}`,
    "preserve_hostname: false",
    "users:",
    `  - name: ${q(o.user)}`,
    "    shell: /bin/bash",
    `    sudo: ${q("ALL=(ALL) NOPASSWD:ALL")}`,
    "    lock_passwd: true",
    "    ssh_authorized_keys:",
    ...o.sshKeys.map((k) => `      - ${q(k.trim())}`),
    "ssh_pwauth: false",
    "",
  ].join("\n");
}
