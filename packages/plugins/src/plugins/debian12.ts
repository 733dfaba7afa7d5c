import { defineOsPlugin } from "../define";
import { sshdDaemon } from "../sshd";

export const DEBIAN12_PACKAGES = [
  "libvirt-daemon-system",
  "libvirt-clients",
  "qemu-system-x86",
  "qemu-utils",
  "virtinst",
  "ansible-core",
  "openssh-server",
  "openssh-client",
  "dnsmasq-base",
];

/**
 * Debian 12 (the development and CI hosts): the apt equivalents of the RHEL set. Only what is
 * missing is installed or started; a running daemon is never restarted, nothing is removed.
 * Hosts without systemd (containers, CI machines) get their daemons started directly.
 */
export const debian12 = defineOsPlugin({
  name: "debian12",
  version: "1.0.0",
  description: "Debian 12 host (development and CI): hypervisor, Ansible, a container engine, libvirt pool and network",
  family: "debian",
  osIds: ["debian"],
  major: "12",
  info: {
    checks: [
      `packages installed (dpkg-query): ${DEBIAN12_PACKAGES.join(", ")}; a container engine (podman, docker.io or docker-ce)`,
      "daemons running: libvirtd (and virtlogd without systemd), sshd",
      "ufw, when it is active: the AI assistant and workflow UI ports allowed",
      "the images directory exists; /dev/kvm group kvm mode 660",
      "libvirt storage pool and network defined, running, autostarted",
    ],
    changes: [
      "apt-get install --no-install-recommends (missing packages only; podman when no container engine is installed)",
      "systemctl enable --now libvirtd ssh, or without systemd: virtlogd -d, libvirtd -d, sshd (stopped daemons only)",
      "ufw allow PORT/tcp (only when ufw is active)",
      "install -d",
      "virsh pool-define-as/pool-build/pool-start/pool-autostart, net-start/net-autostart",
    ],
    dependencies: ["apt-get", "root (or passwordless sudo)", "a Debian 12 mirror"],
  },
  desiredState: (s) => ({
    packages: DEBIAN12_PACKAGES,
    anyOf: [["podman", "docker.io", "docker-ce"]],
    daemons: [
      { name: "virtlogd", units: [], process: "virtlogd", start: [["virtlogd", "-d"]] },
      { name: "libvirtd", units: ["libvirtd.service"], process: "libvirtd", start: [["libvirtd", "-d"]] },
      sshdDaemon("ssh.service", s.sshPort, "/run/sshd"),
    ],
    firewallPorts: s.ports.map((p) => `${p}/tcp`),
    selinuxContexts: [],
    directories: [s.imagesDir],
    pool: { name: s.poolName, dir: s.poolDir },
    network: s.networkName,
  }),
});
