import type { ImageInfo, VmInfo } from "../types";

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(w[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

const endpoint = (v: VmInfo) => (v.ssh_host && v.ssh_port ? `${v.ssh_user ?? "root"}@${v.ssh_host}:${v.ssh_port}` : "-");

/** `list vm` as a table. */
export function vmTable(vms: VmInfo[]): string {
  if (vms.length === 0) return "no VMs";
  return table(
    ["NAME", "STATE", "IMAGE", "CPUS", "MEMORY", "SSH"],
    vms.map((v) => [v.name, v.state, v.image ?? "-", String(v.cpus ?? "-"), v.memory_mb ? `${v.memory_mb} MiB` : "-", endpoint(v)]),
  );
}

/** `info vm` as aligned key: value lines. */
export function vmDetails(v: VmInfo): string {
  const rows: [string, string][] = [
    ["name", v.name],
    ["state", v.state],
    ["image", v.image ?? "-"],
    ["iso", v.iso ?? "-"],
    ["cpus", String(v.cpus ?? "-")],
    ["memory", v.memory_mb ? `${v.memory_mb} MiB` : "-"],
    ["ip", v.ip ?? "-"],
    ["ssh", endpoint(v)],
    ["nets", v.nets.join(", ") || "-"],
    ["macs", v.macs.join(", ") || "-"],
    ["disks", v.disks.map((d) => (d.size_gb ? `${d.path} (${d.size_gb} GB)` : d.path)).join(", ") || "-"],
    ["driver", v.driver],
  ];
  return rows.map(([k, val]) => `${`${k}:`.padEnd(8)} ${val}`).join("\n");
}

/** `list image` as a table. */
export function imageTable(images: ImageInfo[], dir: string): string {
  if (images.length === 0) return `no images in ${dir}`;
  return table(
    ["NAME", "OS", "BOOT", "PATH"],
    images.map((i) => [i.name, i.os ?? "-", i.boot, i.path]),
  );
}
