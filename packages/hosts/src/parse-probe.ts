// Parsers of what the probe's commands print (virsh, find; df in capacity-text); pure, so tests feed them text.

const KIB_PER_MIB = 1024;

/** `virsh nodeinfo`: CPU(s) and Memory size (KiB). */
export function parseNodeInfo(text: string): { cpus: number; memoryMb: number } {
  const cpus = /^CPU\(s\):\s*(\d+)/m.exec(text);
  const mem = /^Memory size:\s*(\d+)\s*KiB/m.exec(text);
  if (!cpus || !mem) throw new Error(`cannot read virsh nodeinfo: ${text.trim().slice(0, 200)}`);
  return { cpus: Number(cpus[1]), memoryMb: Math.floor(Number(mem[1]) / KIB_PER_MIB) };
}

/** `virsh nodememstats`: total, and free + buffers + cached (what the kernel gives back), in MiB. */
export function parseNodeMemStats(text: string): { totalMb: number; freeMb: number } {
  const v = (k: string) => {
    const m = new RegExp(`^${k}\\s*:\\s*(\\d+)\\s*KiB`, "m").exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const total = v("total");
  const free = v("free");
  if (total === undefined || free === undefined) throw new Error(`cannot read virsh nodememstats: ${text.trim().slice(0, 200)}`);
  return { totalMb: Math.floor(total / KIB_PER_MIB), freeMb: Math.floor((free + (v("buffers") ?? 0) + (v("cached") ?? 0)) / KIB_PER_MIB) };
}

/** `virsh freecell --all`: the Total line (KiB), in MiB. */
export function parseFreeCell(text: string): number {
  const m = /^Total:\s*(\d+)\s*KiB/m.exec(text);
  if (!m) throw new Error(`cannot read virsh freecell: ${text.trim().slice(0, 200)}`);
  return Math.floor(Number(m[1]) / KIB_PER_MIB);
}

/**
 * Image names from `find DIR -mindepth 1 -maxdepth 2 ... -printf '%P\n'` in svc-vm's layout:
 * `<name>/disk.{qcow2,img,raw}` or `<name>.{qcow2,img}`; names starting with '.' are downloads.
 */
export function parseImageList(text: string): string[] {
  const names = new Set<string>();
  for (const raw of text.split("\n")) {
    const p = raw.trim();
    const dir = /^([^/]+)\/disk\.(qcow2|img|raw)$/.exec(p);
    const file = /^([^/]+)\.(qcow2|img)$/.exec(p);
    const name = dir?.[1] ?? file?.[1];
    if (name && !name.startsWith(".")) names.add(name);
  }
  return [...names].sort();
}

/** `virsh list --name`: one name a line. */
export function parseNames(text: string): string[] {
  return text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
}
