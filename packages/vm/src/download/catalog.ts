/** How a download is verified: a digest given here, or the publisher's checksum file. */
export type ChecksumSource = { kind: "digest"; algorithm: "sha256" | "sha512"; hex: string } | { kind: "file"; url: string };

/** A published cloud image `svc-vm download image NAME` knows. */
export interface CatalogImage {
  name: string;
  /** Written to image.json: the OS the products pick their implementation by. */
  os: string;
  /** The cloud-init default user of the image (what `svc-vm ssh` logs in as). */
  sshUser: string;
  description: string;
  url: string;
  checksum: ChecksumSource;
}

/*
 * The publishers below only keep rolling "latest" files (the dated builds under them are pruned),
 * so a digest pinned here would stop matching within weeks. Each entry therefore names the
 * publisher's own checksum file, fetched over HTTPS before the image and matched by file name
 * (or, when the file holds a single entry, as for the "latest" symlinks of CentOS and Rocky, that
 * entry). CentOS and Rocky publish SHA-256; Debian publishes only SHA-512 (SHA512SUMS), which is
 * what its image is verified with. `--sha256 HEX` pins a digest instead; `--url` with `--sha256`
 * or `--checksum-url` reads a mirror.
 */
export const CATALOG: readonly CatalogImage[] = [
  {
    name: "centos9stream",
    os: "centos9stream",
    sshUser: "cloud-user",
    description: "CentOS Stream 9 GenericCloud (x86_64)",
    url: "https://cloud.centos.org/centos/9-stream/x86_64/images/CentOS-Stream-GenericCloud-9-latest.x86_64.qcow2",
    checksum: { kind: "file", url: "https://cloud.centos.org/centos/9-stream/x86_64/images/CentOS-Stream-GenericCloud-9-latest.x86_64.qcow2.SHA256SUM" },
  },
  {
    name: "centos10stream",
    os: "centos10stream",
    sshUser: "cloud-user",
    description: "CentOS Stream 10 GenericCloud (x86_64)",
    url: "https://cloud.centos.org/centos/10-stream/x86_64/images/CentOS-Stream-GenericCloud-10-latest.x86_64.qcow2",
    checksum: { kind: "file", url: "https://cloud.centos.org/centos/10-stream/x86_64/images/CentOS-Stream-GenericCloud-10-latest.x86_64.qcow2.SHA256SUM" },
  },
  {
    name: "rocky9",
    os: "rocky9",
    sshUser: "rocky",
    description: "Rocky Linux 9 GenericCloud Base (x86_64)",
    url: "https://dl.rockylinux.org/pub/rocky/9/images/x86_64/Rocky-9-GenericCloud-Base.latest.x86_64.qcow2",
    checksum: { kind: "file", url: "https://dl.rockylinux.org/pub/rocky/9/images/x86_64/Rocky-9-GenericCloud-Base.latest.x86_64.qcow2.CHECKSUM" },
  },
  {
    name: "debian12",
    os: "debian12",
    sshUser: "debian",
    description: "Debian 12 (bookworm) genericcloud (amd64)",
    url: "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2",
    checksum: { kind: "file", url: "https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS" },
  },
];

/** The catalogue entry for `name`, or undefined. */
export function catalogImage(name: string): CatalogImage | undefined {
  return CATALOG.find((c) => c.name === name);
}
