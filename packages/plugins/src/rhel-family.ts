import { defineOsPlugin } from "./define";
import { sshdDaemon } from "./sshd";
import type { DaemonSpec, OsPlugin } from "./types";

/** One RHEL-family release: its os-release IDs and major version. */
export interface RhelRelease {
  name: string;
  description: string;
  osIds: string[];
  major: "9" | "10";
}

export const RHEL_PACKAGES = ["libvirt", "qemu-kvm", "virt-install", "ansible-core", "podman", "firewalld", "policycoreutils-python-utils", "openssh-server", "openssh-clients"];

// EL 10 runs libvirt as modular daemons (socket-activated); EL 9 keeps the monolithic libvirtd.
function libvirtDaemons(major: "9" | "10"): DaemonSpec[] {
  if (major === "10") {
    return [
      {
        name: "libvirt",
        units: ["virtqemud.socket", "virtnetworkd.socket", "virtstoraged.socket"],
        process: "virtqemud",
        start: [
          ["virtqemud", "-d"],
          ["virtnetworkd", "-d"],
          ["virtstoraged", "-d"],
        ],
      },
    ];
  }
  return [
    // systemd socket-activates virtlogd for libvirtd; without systemd it is started first.
    { name: "virtlogd", units: [], process: "virtlogd", start: [["virtlogd", "-d"]] },
    { name: "libvirtd", units: ["libvirtd.service"], process: "libvirtd", start: [["libvirtd", "-d"]] },
  ];
}

/** A RHEL-family OS plugin: dnf, systemd, firewalld and SELinux. */
export function rhelFamilyPlugin(r: RhelRelease): OsPlugin {
  return defineOsPlugin({
    name: r.name,
    version: "1.0.0",
    description: r.description,
    family: "rhel",
    osIds: r.osIds,
    major: r.major,
    info: {
      checks: [
        `packages installed (rpm -q): ${RHEL_PACKAGES.join(", ")}`,
        `daemons enabled and running: ${r.major === "10" ? "virtqemud/virtnetworkd/virtstoraged sockets" : "libvirtd"}, firewalld, sshd`,
        "firewalld permanent ports: the AI assistant and workflow UI ports",
        "SELinux: a local fcontext rule and the virt_image_t label on the images directory",
        "the images directory exists; /dev/kvm group kvm mode 660",
        "libvirt storage pool and network defined, running, autostarted",
      ],
      changes: [
        "dnf install -y (missing packages only)",
        "systemctl enable --now (stopped or disabled units only)",
        "firewall-cmd --permanent --add-port, firewall-cmd --reload",
        "semanage fcontext -a -t virt_image_t, restorecon -R",
        "install -d",
        "virsh pool-define-as/pool-build/pool-start/pool-autostart, net-start/net-autostart",
      ],
      dependencies: ["dnf", "systemd", "root (or passwordless sudo)", "AppStream repository (ansible-core, podman)"],
    },
    desiredState: (s) => ({
      packages: RHEL_PACKAGES,
      anyOf: [],
      daemons: [
        ...libvirtDaemons(r.major),
        { name: "firewalld", units: ["firewalld.service"], process: "firewalld", start: [["firewalld"]] },
        sshdDaemon("sshd.service", s.sshPort),
      ],
      firewallPorts: s.ports.map((p) => `${p}/tcp`),
      selinuxContexts: [{ path: s.imagesDir, type: "virt_image_t" }],
      directories: [s.imagesDir],
      pool: { name: s.poolName, dir: s.poolDir },
      network: s.networkName,
    }),
  });
}
