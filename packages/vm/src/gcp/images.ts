/** OS names (as on libvirt) → the public image family of the distribution's own GCP project. */
export const GCP_IMAGES: Record<string, { project: string; family: string }> = {
  debian12: { project: "debian-cloud", family: "debian-12" },
  debian13: { project: "debian-cloud", family: "debian-13" },
  ubuntu2204: { project: "ubuntu-os-cloud", family: "ubuntu-2204-lts" },
  ubuntu2404: { project: "ubuntu-os-cloud", family: "ubuntu-2404-lts-amd64" },
  rocky9: { project: "rocky-linux-cloud", family: "rocky-linux-9" },
  centos9stream: { project: "centos-cloud", family: "centos-stream-9" },
  alma9: { project: "almalinux-cloud", family: "almalinux-9" },
};

/** A GCP label value (lower-case letters, digits, `-`, `_`; at most 63): other characters become `-`. */
export function gcpLabelValue(v: string): string {
  return v
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 63);
}

/** The last segment of a resource URL (`.../machineTypes/e2-small` → `e2-small`). */
export const lastSegment = (url: string | null | undefined): string => (url ?? "").split("/").pop() ?? "";
