import { dirname } from "node:path";
import type { HostExecutor } from "@svc/host";
import { parseDomainXml } from "@svc/vm";
import { parseDf, parseFreeCell, parseImageList, parseNames, parseNodeInfo, parseNodeMemStats } from "./parse-probe";
import type { HostCapacity, HostRecord, ProbedVm, ProbeResult } from "./types";

/** What the probe needs of a host record. */
export type ProbeTarget = Pick<HostRecord, "libvirt_uri" | "images_dir" | "disks_dir">;

const CMD_MS = 60_000;

async function out(ex: HostExecutor, argv: string[], root = true): Promise<string> {
  const r = await ex.run(argv, { root, timeoutMs: CMD_MS });
  if (r.code !== 0) throw new Error(`${argv.slice(0, 4).join(" ")} exited ${r.code}: ${(r.stderr || r.stdout).trim().split("\n").pop() ?? ""}`.slice(0, 400));
  return r.stdout;
}

/** df of the disks directory, or of its nearest existing parent (a new host has none yet). */
async function diskOf(ex: HostExecutor, dir: string): Promise<{ totalGb: number; freeGb: number; path: string }> {
  for (let p = dir; ; p = dirname(p)) {
    const r = await ex.run(["df", "-B1", "--output=size,avail", "--", p], { timeoutMs: CMD_MS });
    if (r.code === 0) return { ...parseDf(r.stdout), path: p };
    if (p === "/" || !/no such file/i.test(r.stderr)) throw new Error(`df ${p} exited ${r.code}: ${r.stderr.trim().slice(0, 200)}`);
  }
}

/** nodememstats (free + buffers + cached), or freecell's total where the driver has no memory stats. */
async function memoryOf(ex: HostExecutor, uri: string, totalMb: number): Promise<{ totalMb: number; freeMb: number }> {
  const stats = await ex.run(["virsh", "--connect", uri, "nodememstats"], { root: true, timeoutMs: CMD_MS });
  if (stats.code === 0) return parseNodeMemStats(stats.stdout);
  return { totalMb, freeMb: parseFreeCell(await out(ex, ["virsh", "--connect", uri, "freecell", "--all"])) };
}

/**
 * Measure a host over its executor, argv only: `virsh nodeinfo` and `nodememstats` (or `freecell`), the domains
 * (`list`, `dumpxml`: which svc made, what the running ones hold), `df` of the disks directory and
 * the images directory's listing. Throws on the first failure (the caller reports the host down).
 */
export async function probeCapacity(ex: HostExecutor, h: ProbeTarget): Promise<HostCapacity> {
  const virsh = (...args: string[]) => out(ex, ["virsh", "--connect", h.libvirt_uri, ...args]);
  const node = parseNodeInfo(await virsh("nodeinfo"));
  const mem = await memoryOf(ex, h.libvirt_uri, node.memoryMb);
  const all = parseNames(await virsh("list", "--all", "--name"));
  const running = new Set(parseNames(await virsh("list", "--state-running", "--name")));
  const vms: ProbedVm[] = [];
  for (const name of all) {
    const r = await ex.run(["virsh", "--connect", h.libvirt_uri, "dumpxml", "--", name], { root: true, timeoutMs: CMD_MS });
    if (r.code !== 0) continue; // undefined meanwhile
    const d = parseDomainXml(r.stdout);
    vms.push({ name, running: running.has(name), svc: d.meta !== null, memory_mb: d.memoryMb, cpus: d.cpus });
  }
  const disk = await diskOf(ex, h.disks_dir);
  const find = await ex.run(["find", h.images_dir, "-mindepth", "1", "-maxdepth", "2", "-printf", "%P\\n"], { root: true, timeoutMs: CMD_MS });
  // A host without an images directory has no images; any other failure is one.
  if (find.code !== 0 && !/no such file/i.test(find.stderr)) throw new Error(`find ${h.images_dir} exited ${find.code}: ${find.stderr.trim().slice(0, 200)}`);
  const on = vms.filter((v) => v.running);
  return {
    memory_total_mb: mem.totalMb || node.memoryMb,
    memory_free_mb: mem.freeMb,
    memory_committed_mb: on.reduce((s, v) => s + (v.memory_mb ?? 0), 0),
    vcpus_total: node.cpus,
    vcpus_used: on.reduce((s, v) => s + (v.cpus ?? 0), 0),
    disk_total_gb: disk.totalGb,
    disk_free_gb: disk.freeGb,
    disk_path: disk.path,
    images: find.code === 0 ? parseImageList(find.stdout) : [],
    vms,
    vm_count: vms.filter((v) => v.svc).length,
    probed_at: new Date().toISOString(),
  };
}

/** probeCapacity, with any failure (SSH, host key, libvirt) as `up: false` and its reason. */
export async function probeHost(ex: HostExecutor, h: ProbeTarget): Promise<ProbeResult> {
  try {
    return { up: true, capacity: await probeCapacity(ex, h) };
  } catch (e) {
    return { up: false, error: e instanceof Error ? e.message : String(e) };
  }
}
