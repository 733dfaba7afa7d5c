import { chmodSync, closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VmInputError, VmPermissionError } from "../errors";
import { listImages } from "../images";
import { CATALOG, catalogImage, type ChecksumSource } from "./catalog";
import { parseChecksumFile, pickChecksum } from "./checksum";
import { ChecksumMismatchError, DownloadError } from "./errors";
import { downloadFile, fetchText, shownUrl } from "./http";

/** What `download image` is asked for. */
export interface DownloadImageOptions {
  imagesDir: string;
  name: string;
  /** Another place to fetch the same image from (a mirror); needs `sha256` or `checksumUrl`. */
  url?: string;
  sha256?: string;
  checksumUrl?: string;
  /** Download again although the image is registered. */
  force?: boolean;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  progressIntervalMs?: number;
  /** VMs whose disks are overlays on the image (a forced download would break them). */
  vmsUsing?: (image: string) => Promise<string[]>;
}

/** The registered image; `downloaded` is false when it was there already and kept. */
export interface DownloadImageResult {
  name: string;
  path: string;
  os: string | null;
  ssh_user: string | null;
  downloaded: boolean;
  url?: string;
  checksum?: { algorithm: "sha256" | "sha512"; hex: string };
  bytes?: number;
}

function checkOptions(o: DownloadImageOptions): ChecksumSource | undefined {
  const isHttp = (u: string) => /^https?:\/\/[^\s]+$/.test(u) && URL.canParse(u);
  if (o.url !== undefined && !isHttp(o.url)) throw new VmInputError(`--url must be an http:// or https:// URL, got ${JSON.stringify(o.url).slice(0, 80)}`);
  if (o.checksumUrl !== undefined && !isHttp(o.checksumUrl))
    throw new VmInputError(`--checksum-url must be an http:// or https:// URL, got ${JSON.stringify(o.checksumUrl).slice(0, 80)}`);
  if (o.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(o.sha256)) throw new VmInputError("--sha256 takes the 64 hex digits of the image's SHA-256");
  if (o.sha256 !== undefined && o.checksumUrl !== undefined) throw new VmInputError("give --sha256 or --checksum-url, not both");
  if (o.url !== undefined && o.sha256 === undefined && o.checksumUrl === undefined)
    throw new VmInputError("--url needs the image's --sha256 HEX (or --checksum-url URL): a download is never registered unverified");
  if (o.sha256 !== undefined) return { kind: "digest", algorithm: "sha256", hex: o.sha256.toLowerCase() };
  if (o.checksumUrl !== undefined) return { kind: "file", url: o.checksumUrl };
  return undefined;
}

async function expectedDigest(source: ChecksumSource, url: string, o: DownloadImageOptions): Promise<{ algorithm: "sha256" | "sha512"; hex: string }> {
  if (source.kind === "digest") return { algorithm: source.algorithm, hex: source.hex };
  const fileName = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
  const entry = pickChecksum(parseChecksumFile(await fetchText(source.url, { signal: o.signal })), fileName, shownUrl(source.url));
  return { algorithm: entry.algorithm, hex: entry.hex };
}

function isQcow2(path: string): boolean {
  const head = Buffer.alloc(4);
  const fd = openSync(path, "r");
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  return head.toString("latin1") === "QFI\xfb";
}

/**
 * Fetch a published cloud image, verify it against the publisher's checksum and register it as
 * `<imagesDir>/<name>/disk.qcow2` + `image.json`. The bytes go to a staging directory in the
 * images directory that becomes the image with one rename, so a broken, refused or interrupted
 * download leaves nothing behind and `list image` never sees half an image.
 */
export async function downloadImage(o: DownloadImageOptions): Promise<DownloadImageResult> {
  const entry = catalogImage(o.name);
  if (!entry) throw new VmInputError(`unknown image ${JSON.stringify(o.name).slice(0, 60)}; svc-vm download image knows: ${CATALOG.map((c) => c.name).join(", ")}`);
  const override = checkOptions(o);
  const existing = listImages(o.imagesDir).find((i) => i.name === o.name);
  if (existing && !o.force) return { name: o.name, path: existing.disk, os: existing.os, ssh_user: existing.sshUser, downloaded: false };
  const finalDir = join(o.imagesDir, o.name);
  if (existing && (existing.path !== finalDir || !lstatSync(finalDir).isDirectory())) {
    throw new VmInputError(
      `image '${o.name}' at ${existing.path} is a file or a symbolic link, not a directory svc-vm download image made; --force does not replace it: remove it first`,
    );
  }
  if (existing) {
    const users = (await o.vmsUsing?.(o.name)) ?? [];
    if (users.length) throw new VmInputError(`image '${o.name}' is the base of VM(s) ${users.join(", ")}; replacing it would break their disks: delete them first`);
  }
  const url = o.url ?? entry.url;
  const expected = await expectedDigest(override ?? entry.checksum, url, o);
  let staging: string;
  try {
    mkdirSync(o.imagesDir, { recursive: true });
    staging = mkdtempSync(join(o.imagesDir, `.download-${o.name}-`));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") throw new VmPermissionError(`cannot write to ${o.imagesDir} (${code}); run svc-vm as root (sudo svc-vm ...) or pick --images-dir`);
    throw e;
  }
  try {
    const part = join(staging, "disk.qcow2.part");
    o.onProgress?.(`downloading ${shownUrl(url)}`);
    const got = await downloadFile(url, part, expected.algorithm, { signal: o.signal, onProgress: o.onProgress, progressIntervalMs: o.progressIntervalMs, label: o.name });
    if (got.hex !== expected.hex) throw new ChecksumMismatchError(shownUrl(url), expected.algorithm, expected.hex, got.hex);
    if (!isQcow2(part)) throw new DownloadError(`${shownUrl(url)} is not a qcow2 image (its checksum matched, but it does not start with the qcow2 magic); nothing was registered`);
    renameSync(part, join(staging, "disk.qcow2"));
    const manifest = {
      name: o.name,
      description: entry.description,
      os: entry.os,
      boot: "disk",
      key_injection: "cloud-init",
      ssh_user: entry.sshUser,
      source: { url: shownUrl(url), [expected.algorithm]: expected.hex },
    };
    writeFileSync(join(staging, "image.json"), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
    chmodSync(staging, 0o755); // qemu reads the base image as its own user
    if (existing) {
      const old = `${staging}.old`;
      renameSync(finalDir, old);
      renameSync(staging, finalDir);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(staging, finalDir);
    }
    return { name: o.name, path: join(finalDir, "disk.qcow2"), os: entry.os, ssh_user: entry.sshUser, downloaded: true, url: shownUrl(url), checksum: expected, bytes: got.bytes };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
