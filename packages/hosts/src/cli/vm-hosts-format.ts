import type { ImageInfo, VmInfo } from "@svc/vm";

/** A VM or an image with the host it is on (svc-vm -C / --all-hosts output). */
export type OnHost<T> = { host: string } & T;

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

/** `list vm` over hosts: svc-vm's columns after a HOST column. */
export function hostVmTable(vms: OnHost<VmInfo>[]): string {
  if (vms.length === 0) return "no VMs";
  return table(
    ["HOST", "NAME", "STATE", "IMAGE", "CPUS", "MEMORY", "SSH"],
    vms.map((v) => [v.host, v.name, v.state, v.image ?? "-", String(v.cpus ?? "-"), v.memory_mb ? `${v.memory_mb} MiB` : "-", endpoint(v)]),
  );
}

/** `list image` over hosts. */
export function hostImageTable(images: OnHost<ImageInfo>[]): string {
  if (images.length === 0) return "no images";
  return table(
    ["HOST", "NAME", "OS", "BOOT", "PATH"],
    images.map((i) => [i.host, i.name, i.os ?? "-", i.boot, i.path]),
  );
}

/** `info vm` with its host first. */
export function hostVmDetails(v: OnHost<VmInfo>): string {
  const rows: [string, string][] = [
    ["host", v.host],
    ["name", v.name],
    ["state", v.state],
    ["image", v.image ?? "-"],
    ["iso", v.iso ?? "-"],
    ["cpus", String(v.cpus ?? "-")],
    ["memory", v.memory_mb ? `${v.memory_mb} MiB` : "-"],
    ["ip", v.ip ?? "-"],
    ["ssh", endpoint(v)],
    ["nets", (v.nets ?? []).join(", ") || "-"],
    ["macs", (v.macs ?? []).join(", ") || "-"],
    ["disks", (v.disks ?? []).map((d) => (d.size_gb ? `${d.path} (${d.size_gb} GB)` : d.path)).join(", ") || "-"],
    ["driver", v.driver],
  ];
  return rows.map(([k, val]) => `${`${k}:`.padEnd(8)} ${val}`).join("\n");
}
