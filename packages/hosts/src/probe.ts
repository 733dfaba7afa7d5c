import { runSections, type HostExecutor, type Section } from "@svc/host";
import { parseDomainXml } from "@svc/vm";
import { DF_SCRIPT, parseDf, pathAndParents } from "./capacity-text";
import { parseFreeCell, parseImageList, parseNames, parseNodeInfo, parseNodeMemStats } from "./parse-probe";
import type { HostCapacity, HostRecord, ProbedVm, ProbeResult } from "./types";

/** What the probe needs of a host record. */
export type ProbeTarget = Pick<HostRecord, "libvirt_uri" | "images_dir" | "disks_dir">;

const CMD_MS = 60_000;

/**
 * Every measure of a host in one command (as root; runSections: each command is an sshd session
 * and a login shell there). $1 libvirt URI, $2 images directory, then the disks directory and its
 * parents (df of the first that exists: a new host has none yet). Each domain's dumpxml follows a
 * `domname` section holding its name.
 */
const PROBES = `uri=$1 images=$2; shift 2
section nodeinfo virsh --connect "$uri" nodeinfo
section memstats virsh --connect "$uri" nodememstats || section freecell virsh --connect "$uri" freecell --all
section all virsh --connect "$uri" list --all --name && printf '%s\\n' "$out" | while IFS= read -r d; do
  [ -n "$d" ] && section domname printf '%s' "$d" && section dom virsh --connect "$uri" dumpxml -- "$d"
done
section running virsh --connect "$uri" list --state-running --name
for p in "$@"; do section df ${DF_SCRIPT} && { section dfpath printf '%s' "$p"; break; }; done
section images find "$images" -mindepth 1 -maxdepth 2 -printf '%P\\n'`;

const failed = (what: string, f: Section) => new Error(`${what} exited ${f.code}: ${f.out.trim().split("\n").pop() ?? ""}`.slice(0, 400));

/** The section `name` that succeeded, or an error naming the command when it failed or is missing. */
function need(found: Section[], name: string, what: string): string {
  const f = found.find((x) => x.name === name);
  if (!f) throw new Error(`${what}: no answer from the host`);
  if (f.code !== 0) throw failed(what, f);
  return f.out;
}

/** df of the disks directory, or of its nearest existing parent. */
function diskOf(found: Section[], dir: string): { totalGb: number; freeGb: number; path: string } {
  const path = found.find((x) => x.name === "dfpath");
  if (path) return { ...parseDf(found.filter((x) => x.name === "df" && x.code === 0).pop()!.out), path: path.out };
  const last = found.filter((x) => x.name === "df").pop();
  // Only a path that does not exist moves on to its parent; the last try's error is the reason.
  const other = found.find((x) => x.name === "df" && !/no such file/i.test(x.out));
  throw failed(`df ${dir}`, other ?? last ?? { name: "df", code: 1, out: "no answer" });
}

/**
 * Measure a host over its executor in one command: `virsh nodeinfo` and `nodememstats` (or
 * `freecell`), the domains (`list`, `dumpxml`: which svc made, what the running ones hold), `df` of
 * the disks directory and the images directory's listing. Throws on the first failure (the caller
 * reports the host down).
 */
export async function probeCapacity(ex: HostExecutor, h: ProbeTarget): Promise<HostCapacity> {
  const r = await runSections(ex, PROBES, [h.libvirt_uri, h.images_dir, ...pathAndParents(h.disks_dir)], { root: true, timeoutMs: CMD_MS });
  const found = r.sections;
  if (!found.length) throw new Error(`the probe printed nothing (exit ${r.code}): ${r.stderr.trim().split("\n").pop() ?? ""}`.slice(0, 400));
  const virsh = (name: string, args: string) => need(found, name, `virsh --connect ${h.libvirt_uri} ${args}`);
  const node = parseNodeInfo(virsh("nodeinfo", "nodeinfo"));
  const stats = found.find((x) => x.name === "memstats");
  const mem = stats?.code === 0 ? parseNodeMemStats(stats.out) : { totalMb: node.memoryMb, freeMb: parseFreeCell(virsh("freecell", "freecell --all")) };
  // The domains come as domname/dom pairs below; the list itself only has to have worked.
  virsh("all", "list --all --name");
  const running = new Set(parseNames(virsh("running", "list --state-running --name")));
  const vms: ProbedVm[] = [];
  found.forEach((x, i) => {
    const dom = found[i + 1];
    // A domain undefined between the list and its dumpxml is left out.
    if (x.name !== "domname" || dom?.name !== "dom" || dom.code !== 0) return;
    const d = parseDomainXml(dom.out);
    vms.push({ name: x.out, running: running.has(x.out), svc: d.meta !== null, memory_mb: d.memoryMb, cpus: d.cpus });
  });
  const disk = diskOf(found, h.disks_dir);
  const find = found.find((x) => x.name === "images") ?? { name: "images", code: 1, out: "no answer" };
  // A host without an images directory has no images; any other failure is one.
  if (find.code !== 0 && !/no such file/i.test(find.out)) throw failed(`find ${h.images_dir}`, find);
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
    images: find.code === 0 ? parseImageList(find.out) : [],
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
