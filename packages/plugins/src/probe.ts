import type { HostExecutor, RunResult } from "@svc/host";
import { fcontextSpec, parseDpkgInstalled, parseListeners, parseFcontextRules, parseOpenPorts, parseOsRelease, parseRpmInstalled, parseVirshInfo, selinuxType } from "./parse";
import type { DesiredState, HostState, LibvirtObjectState } from "./types";

const PROBE_TIMEOUT_MS = 60_000;
export const VIRSH = ["virsh", "-c", "qemu:///system"];

/** Run a read-only probe; a missing command is a result (code 127), not an error. */
async function probe(exec: HostExecutor, argv: string[]): Promise<RunResult> {
  try {
    return await exec.run(argv, { root: true, timeoutMs: PROBE_TIMEOUT_MS, env: { LC_ALL: "C" } });
  } catch (e) {
    if (/command not found/.test((e as Error).message)) return { code: 127, stdout: "", stderr: (e as Error).message };
    throw e;
  }
}

/**
 * Read the host's state for the given desired state: only read-only commands run here.
 * Shared by every OS plugin; `family` picks the package database.
 */
export async function probeHost(exec: HostExecutor, family: "rhel" | "debian", desired: DesiredState): Promise<HostState> {
  const os = parseOsRelease((await probe(exec, ["cat", "/etc/os-release"])).stdout);
  const systemd = (await probe(exec, ["test", "-d", "/run/systemd/system"])).code === 0;
  const wanted = [...desired.packages, ...desired.anyOf.flat()];
  const packages: Record<string, boolean> = {};
  const installed =
    family === "debian"
      ? parseDpkgInstalled((await probe(exec, ["dpkg-query", "-W", "-f=${Package}\t${Status}\n", ...wanted])).stdout)
      : parseRpmInstalled((await probe(exec, ["rpm", "-q", "--qf", "%{NAME}\n", ...wanted])).stdout, wanted);
  for (const p of wanted) packages[p] = installed.has(p);

  const services: HostState["services"] = {};
  // Without systemd a daemon counts as enabled while its process runs (one `ps` for all of them).
  const running = systemd ? new Set<string>() : new Set((await probe(exec, ["ps", "-e", "-o", "comm="])).stdout.split("\n").map((l) => l.trim()));
  const listening = systemd || !desired.daemons.some((d) => d.listenPort) ? [] : parseListeners((await probe(exec, ["ss", "-Hltnp"])).stdout);
  for (const d of desired.daemons) {
    if (systemd) {
      for (const unit of d.units) {
        const enabled = (await probe(exec, ["systemctl", "is-enabled", "--quiet", unit])).code === 0;
        const active = (await probe(exec, ["systemctl", "is-active", "--quiet", unit])).code === 0;
        services[unit] = { enabled, active };
      }
    } else {
      const up = d.listenPort ? listening.some((l) => l.port === d.listenPort && l.processes.includes(d.process)) : running.has(d.process);
      services[d.process] = { enabled: up, active: up };
    }
  }

  // find prints the paths that are directories (and complains about the missing ones on stderr).
  const found = new Set((await probe(exec, ["find", ...desired.directories, "-maxdepth", "0", "-type", "d"])).stdout.split("\n"));
  const directories: Record<string, boolean> = {};
  for (const dir of desired.directories) directories[dir] = found.has(dir);

  return {
    os,
    systemd,
    packages,
    services,
    firewall: await probeFirewall(exec, family),
    selinux: await probeSelinux(exec, desired),
    directories,
    kvm: await probeKvm(exec),
    libvirt: await probeLibvirt(exec, desired),
  };
}

async function probeFirewall(exec: HostExecutor, family: "rhel" | "debian"): Promise<HostState["firewall"]> {
  if (family === "rhel") {
    const state = await probe(exec, ["firewall-cmd", "--state"]);
    if (state.code === 127) return { tool: "none", running: false, openPorts: [] };
    if (state.code !== 0) return { tool: "firewalld", running: false, openPorts: [] };
    const ports = await probe(exec, ["firewall-cmd", "--permanent", "--list-ports"]);
    return { tool: "firewalld", running: true, openPorts: parseOpenPorts(ports.stdout, "firewalld") };
  }
  const ufw = await probe(exec, ["ufw", "status"]);
  if (ufw.code === 127) return { tool: "none", running: false, openPorts: [] };
  const running = /^Status: active/m.test(ufw.stdout);
  return { tool: "ufw", running, openPorts: running ? parseOpenPorts(ufw.stdout, "ufw") : [] };
}

async function probeSelinux(exec: HostExecutor, desired: DesiredState): Promise<HostState["selinux"]> {
  const mode = (await probe(exec, ["getenforce"])).stdout.trim().toLowerCase();
  if (mode !== "enforcing" && mode !== "permissive") return { mode: "disabled", fcontextRules: [], labels: {} };
  const rules = parseFcontextRules((await probe(exec, ["semanage", "fcontext", "-l", "-C"])).stdout);
  const labels: Record<string, string> = {};
  for (const c of desired.selinuxContexts) {
    const r = await probe(exec, ["stat", "-c", "%C", c.path]);
    labels[c.path] = r.code === 0 ? selinuxType(r.stdout) : "";
  }
  return { mode, fcontextRules: rules.filter((r) => desired.selinuxContexts.some((c) => r.startsWith(`${fcontextSpec(c.path)}=`))), labels };
}

async function probeKvm(exec: HostExecutor): Promise<HostState["kvm"]> {
  const r = await probe(exec, ["stat", "-L", "-c", "%F|%G|%a", "/dev/kvm"]);
  const [type, group, mode] = r.stdout.trim().split("|");
  if (r.code !== 0 || type !== "character special file") return { present: false, group: "", mode: "" };
  return { present: true, group: group ?? "", mode: mode ?? "" };
}

async function probeLibvirt(exec: HostExecutor, desired: DesiredState): Promise<HostState["libvirt"]> {
  const version = await probe(exec, [...VIRSH, "version"]);
  if (version.code !== 0) return { reachable: false, pools: {}, networks: {} };
  const info = async (cmd: "pool-info" | "net-info", name: string): Promise<LibvirtObjectState | null> => {
    const r = await probe(exec, [...VIRSH, cmd, name]);
    return r.code === 0 ? parseVirshInfo(r.stdout) : null;
  };
  return {
    reachable: true,
    pools: { [desired.pool.name]: await info("pool-info", desired.pool.name) },
    networks: { [desired.network]: await info("net-info", desired.network) },
  };
}
