import type { VmInfo } from "../types";

/**
 * A cloud instance's address fields of VmInfo: its public address, else its private one, SSH on
 * port 22 there, and the login user (the settings' sshUser, default svc) only on an instance svc made.
 */
export function cloudSshAddress(
  pub: string | null,
  priv: string | null,
  managedBy: string | undefined,
  sshUser: string | undefined,
): Pick<VmInfo, "ip" | "ssh_host" | "ssh_port" | "ssh_user"> {
  const address = pub ?? priv;
  return { ip: address, ssh_host: address, ssh_port: address ? 22 : null, ssh_user: managedBy === "svc" ? (sshUser ?? "svc") : null };
}
