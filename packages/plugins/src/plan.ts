import { fcontextSpec } from "./parse";
import { VIRSH } from "./probe";
import type { Change, DesiredState, HostState, Step } from "./types";

const APT_ENV = { DEBIAN_FRONTEND: "noninteractive" };
// Other package runs on the host (unattended upgrades, a second deploy) hold the dpkg lock a while.
const APT = ["apt-get", "-o", "DPkg::Lock::Timeout=300"];

/** Packages to install: the missing ones, and the first of each group where none is installed. */
export function missingPackages(current: HostState, desired: DesiredState): string[] {
  const missing = desired.packages.filter((p) => !current.packages[p]);
  for (const group of desired.anyOf) {
    if (!group.some((p) => current.packages[p]) && group[0] && !missing.includes(group[0])) missing.push(group[0]);
  }
  return missing;
}

function packagesChange(family: "rhel" | "debian", missing: string[]): Change {
  const steps: Step[] =
    family === "rhel"
      ? [{ argv: ["dnf", "install", "-y", ...missing] }]
      : [
          { argv: [...APT, "update", "-qq"], env: APT_ENV },
          { argv: [...APT, "install", "-y", "-qq", "--no-install-recommends", ...missing], env: APT_ENV },
        ];
  return { id: "packages", kind: "packages", description: `install ${missing.join(" ")}`, steps };
}

function daemonChanges(current: HostState, desired: DesiredState): Change[] {
  const out: Change[] = [];
  for (const d of desired.daemons) {
    if (current.systemd) {
      const units = d.units.filter((u) => !current.services[u]?.enabled || !current.services[u]?.active);
      // enable --now starts a stopped unit and leaves a running one alone (no restart).
      if (units.length)
        out.push({ id: `service:${d.name}`, kind: "service", description: `enable and start ${units.join(" ")}`, steps: [{ argv: ["systemctl", "enable", "--now", ...units] }] });
    } else if (!current.services[d.process]?.active) {
      out.push({ id: `service:${d.name}`, kind: "service", description: `start ${d.name} (no systemd on this host)`, steps: d.start.map((argv) => ({ argv })) });
    }
  }
  return out;
}

function firewallChange(family: "rhel" | "debian", current: HostState, desired: DesiredState): Change[] {
  const missing = desired.firewallPorts.filter((p) => !current.firewall.openPorts.includes(p));
  if (!missing.length) return [];
  if (family === "rhel") {
    const steps: Step[] = missing.map((p) => ({ argv: ["firewall-cmd", "--permanent", `--add-port=${p}`] }));
    steps.push({ argv: ["firewall-cmd", "--reload"] });
    return [{ id: "firewall", kind: "firewall", description: `open ${missing.join(" ")} in firewalld`, steps }];
  }
  // Debian: only a firewall the operator runs is touched; none is installed by the plugin.
  if (current.firewall.tool !== "ufw" || !current.firewall.running) return [];
  return [{ id: "firewall", kind: "firewall", description: `allow ${missing.join(" ")} in ufw`, steps: missing.map((p) => ({ argv: ["ufw", "allow", p] })) }];
}

function selinuxChanges(current: HostState, desired: DesiredState): Change[] {
  if (current.selinux.mode === "disabled") return [];
  const out: Change[] = [];
  for (const c of desired.selinuxContexts) {
    const spec = fcontextSpec(c.path);
    const steps: Step[] = [];
    const hasRule = current.selinux.fcontextRules.includes(`${spec}=${c.type}`);
    if (!hasRule) steps.push({ argv: ["semanage", "fcontext", "-a", "-t", c.type, spec] });
    if (!hasRule || current.selinux.labels[c.path] !== c.type) steps.push({ argv: ["restorecon", "-R", c.path] });
    if (steps.length) out.push({ id: `selinux:${c.path}`, kind: "selinux", description: `label ${c.path} ${c.type}`, steps });
  }
  return out;
}

function libvirtChanges(current: HostState, desired: DesiredState): Change[] {
  // Unknown until libvirtd answers: deploy checks again after the daemons have started.
  if (!current.libvirt.reachable) return [];
  const out: Change[] = [];
  const { name, dir } = desired.pool;
  const pool = current.libvirt.pools[name];
  const poolSteps: Step[] = [];
  if (!pool) poolSteps.push({ argv: [...VIRSH, "pool-define-as", name, "dir", "--target", dir] }, { argv: [...VIRSH, "pool-build", name] });
  if (!pool?.active) poolSteps.push({ argv: [...VIRSH, "pool-start", name] });
  if (!pool?.autostart) poolSteps.push({ argv: [...VIRSH, "pool-autostart", name] });
  if (poolSteps.length)
    out.push({
      id: `libvirt-pool:${name}`,
      kind: "libvirt-pool",
      description: pool ? `start and autostart storage pool ${name}` : `define storage pool ${name} (${dir}), start and autostart it`,
      steps: poolSteps,
    });

  const net = current.libvirt.networks[desired.network];
  const netSteps: Step[] = [];
  // Only libvirt's own default network has a definition to restore; other networks are the operator's.
  if (!net && desired.network === "default") netSteps.push({ argv: [...VIRSH, "net-define", "/usr/share/libvirt/networks/default.xml"] });
  if (net || desired.network === "default") {
    if (!net?.active) netSteps.push({ argv: [...VIRSH, "net-start", desired.network] });
    if (!net?.autostart) netSteps.push({ argv: [...VIRSH, "net-autostart", desired.network] });
  }
  if (netSteps.length)
    out.push({ id: `libvirt-network:${desired.network}`, kind: "libvirt-network", description: `start and autostart network ${desired.network}`, steps: netSteps });
  return out;
}

/** The changes that take `current` to `desired`, in the order they must run; empty when prepared. */
export function planChanges(family: "rhel" | "debian", current: HostState, desired: DesiredState): Change[] {
  const out: Change[] = [];
  const missing = missingPackages(current, desired);
  if (missing.length) out.push(packagesChange(family, missing));
  for (const dir of desired.directories) {
    if (!current.directories[dir]) out.push({ id: `directory:${dir}`, kind: "directory", description: `create ${dir}`, steps: [{ argv: ["install", "-d", "-m", "0755", dir] }] });
  }
  const kvm = current.kvm;
  if (kvm.present && (kvm.group !== "kvm" || (kvm.mode !== "660" && kvm.mode !== "666"))) {
    out.push({
      id: "kvm-device",
      kind: "kvm",
      description: `/dev/kvm: group kvm, mode 660 (was ${kvm.group} ${kvm.mode})`,
      steps: [{ argv: ["chgrp", "kvm", "/dev/kvm"] }, { argv: ["chmod", "0660", "/dev/kvm"] }],
    });
  }
  out.push(...daemonChanges(current, desired), ...firewallChange(family, current, desired), ...selinuxChanges(current, desired), ...libvirtChanges(current, desired));
  return out;
}
