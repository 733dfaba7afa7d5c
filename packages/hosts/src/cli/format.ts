import type { Placement } from "../place";
import { describePlacement } from "../place";
import type { ProbedHost } from "../service";

function grid(cols: string[], rows: string[][]): string {
  const w = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(w[i]!))
      .join("  ")
      .trimEnd();
  return [line(cols), ...rows.map(line)].join("\n");
}

const up = (h: ProbedHost) => (h.up === null ? (h.probe_error ? "down?" : h.last_probe ? "up?" : "-") : h.up ? "up" : "down");

/** `list` as a table: one host a line; numbers from the last probe. */
export function hostsTable(hosts: ProbedHost[]): string {
  if (hosts.length === 0) return "No hosts";
  const rows = hosts.map((h) => {
    const c = h.last_probe;
    return [
      h.name,
      h.state,
      up(h),
      h.provider === "libvirt" ? `${h.ssh_user}@${h.address}:${h.port}` : `${h.provider}:${h.provider_settings.region ?? h.provider_settings.zone ?? h.provider_settings.location}`,
      c ? String(c.vm_count) : "-",
      c ? `${c.memory_free_mb}/${c.memory_total_mb}` : "-",
      c ? `${c.disk_free_gb}/${c.disk_total_gb}` : "-",
      c ? `${c.vcpus_used}/${c.vcpus_total}` : "-",
      Object.entries(h.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(",") || "-",
    ];
  });
  return grid(["NAME", "STATE", "UP", "SSH", "VMS", "MEM_FREE_MIB", "DISK_FREE_GB", "VCPUS_USED", "LABELS"], rows);
}

/** `info` as `key: value` lines. */
export function hostInfo(h: ProbedHost): string {
  const c = h.last_probe;
  const lines: [string, string][] = [
    ["name", h.name],
    ["state", h.state],
    ["up", up(h)],
    ["ssh", `${h.ssh_user}@${h.address}:${h.port}`],
    ["key_path", h.key_path],
    ["host_key", h.host_key ? h.host_key.split("\n").join("\n          ") : "(none pinned: svc-hosts pin " + h.name + ")"],
    ["libvirt_uri", h.libvirt_uri],
    ["images_dir", h.images_dir],
    ["disks_dir", h.disks_dir],
    ["labels", JSON.stringify(h.labels)],
    ["reserves", `memory ${h.reserve_memory_mb} MiB, disk ${h.reserve_disk_gb} GB, vcpus ${h.reserve_vcpus}; cpu ratio ${h.cpu_ratio}`],
    ["probed_at", h.probed_at ?? "-"],
  ];
  if (h.provider !== "libvirt") {
    lines.splice(3, 6, ["provider", h.provider], ["settings", JSON.stringify(h.provider_settings)], ["api", `${h.address}:${h.port}`], ["key_path", h.key_path]);
    if (h.identity)
      lines.push([
        "identity",
        Object.entries(h.identity)
          .map(([k, v]) => `${k}=${v}`)
          .join(" "),
      ]);
  }
  if (h.probe_error && !h.up) lines.push(["probe_error", h.probe_error]);
  if (c) {
    lines.push(["memory", `${c.memory_free_mb} MiB free of ${c.memory_total_mb}, ${c.memory_committed_mb} held by running VMs`]);
    lines.push(["disk", `${c.disk_free_gb} GB free of ${c.disk_total_gb} (${c.disk_path})`]);
    lines.push(["vcpus", `${c.vcpus_used} used of ${c.vcpus_total}`]);
    lines.push(["images", c.images.join(", ") || "-"]);
    lines.push(["vms", c.vms.map((v) => `${v.name}${v.svc ? "" : " (not svc)"}${v.running ? "" : " (off)"}`).join(", ") || "-"]);
    lines.push(["vm_count", String(c.vm_count)]);
  }
  return lines.map(([k, v]) => `${k.padEnd(11)} ${v}`).join("\n");
}

/** `place` as text: the choice, then one line per host. */
export function placementText(p: Placement): string {
  return describePlacement(p).join("\n");
}
