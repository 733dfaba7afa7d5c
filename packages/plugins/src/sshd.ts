import type { DaemonSpec } from "./types";

/**
 * sshd as a daemon the plugins keep running: its unit under systemd; without systemd it counts as
 * running only when it listens on `port` (svc's SSH port), and is started on that port.
 * `privsepDir` is the privilege-separation directory the distribution's sshd needs, if any.
 */
export function sshdDaemon(unit: string, port: number, privsepDir?: string): DaemonSpec {
  return {
    name: "sshd",
    units: [unit],
    process: "sshd",
    listenPort: port,
    start: [["ssh-keygen", "-A"], ...(privsepDir ? [["install", "-d", "-m", "0755", privsepDir]] : []), ["/usr/sbin/sshd", "-p", String(port)]],
  };
}
