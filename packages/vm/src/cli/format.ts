import type { ImageInfo, VmInfo } from "../types";

/** Where a row is (svc-vm -C / --all-hosts): a HOST column first, a `host:` line first. */
type HostOf<T> = ((row: T) => string) | undefined;

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(w[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** The table, with the HOST column first when rows say where they are. */
function hostTable<T>(head: string[], rows: T[], cells: (r: T) => string[], hostOf: HostOf<T>): string {
  return hostOf
    ? table(
        ["HOST", ...head],
        rows.map((r) => [hostOf(r), ...cells(r)]),
      )
    : table(head, rows.map(cells));
}

const endpoint = (v: VmInfo) => (v.ssh_host && v.ssh_port ? `${v.ssh_user ?? "root"}@${v.ssh_host}:${v.ssh_port}` : "-");

/** `list vm` as a table. */
export function vmTable<T extends VmInfo>(vms: T[], hostOf?: HostOf<T>): string {
  if (vms.length === 0) return "no VMs";
  return hostTable(
    ["NAME", "STATE", "IMAGE", "CPUS", "MEMORY", "SSH"],
    vms,
    (v) => [v.name, v.state, v.image ?? "-", String(v.cpus ?? "-"), v.memory_mb ? `${v.memory_mb} MiB` : "-", endpoint(v)],
    hostOf,
  );
}

/** `info vm` as aligned key: value lines (lists another host's svc-vm may leave out read as none). */
export function vmDetails(v: VmInfo, host?: string): string {
  const rows: [string, string][] = [
    ...(host === undefined ? [] : [["host", host] as [string, string]]),
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
    ...cloudRows(v),
  ];
  return rows.map(([k, val]) => `${`${k}:`.padEnd(8)} ${val}`).join("\n");
}

/** A cloud instance's lines: where it is, its id and size, its addresses, labels and age. */
function cloudRows(v: VmInfo): [string, string][] {
  const c = v.cloud;
  if (!c) return [];
  return [
    ["provider", `${c.provider} ${c.region}${c.zone ? ` (${c.zone})` : ""}, instance ${c.instance_id}, size ${c.size}, image ${c.image_id || "-"}`],
    ["public", c.public_ip ?? "-"],
    ["private", c.private_ip ?? "-"],
    [
      "labels",
      Object.entries(c.labels)
        .map(([k, val]) => `${k}=${val}`)
        .join(", ") || "-",
    ],
    ["since", c.launched_at ? `${c.launched_at}${c.age_s === null ? "" : ` (${Math.round(c.age_s / 60)} min)`}` : "-"],
  ];
}

/** `list image` as a table; `none` is what an empty list says. */
export function imageTable<T extends ImageInfo>(images: T[], none: string, hostOf?: HostOf<T>): string {
  if (images.length === 0) return none;
  return hostTable(["NAME", "OS", "BOOT", "PATH"], images, (i) => [i.name, i.os ?? "-", i.boot, i.path], hostOf);
}
