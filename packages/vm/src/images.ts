import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ImageNotFoundError } from "./errors";
import { assertImageName } from "./names";
import type { ImageInfo } from "./types";

/**
 * Image layout in the images directory:
 *   <dir>/<name>/disk.qcow2 (or disk.img, disk.raw) [+ vmlinuz + initrd.img] [+ image.json]
 *   (names starting with "." are skipped: downloads in progress are staged there)
 *   <dir>/<name>.qcow2 | <name>.img   (a cloud image: boots from its disk, cloud-init seed)
 * With vmlinuz + initrd.img the VM boots that kernel directly (the test image).
 */
export interface ResolvedImage extends ImageInfo {
  disk: string;
  diskFormat: "qcow2" | "raw";
  kernel: string | null;
  initrd: string | null;
  cmdline: string;
  /** How the SSH key reaches the guest: kernel command line or a cloud-init NoCloud ISO. */
  keyInjection: "cmdline" | "cloud-init";
  sshUser: string;
}

const manifestSchema = z.object({
  description: z.string().optional(),
  /** Guest OS and major release, lower-case: debian12, centos9stream, rocky9 (else unknown, not fatal). */
  os: z
    .string()
    .regex(/^[a-z][a-z0-9._-]{0,40}$/)
    .optional()
    .catch(undefined),
  boot: z.enum(["kernel", "disk"]).optional(),
  cmdline: z.string().optional(),
  key_injection: z.enum(["cmdline", "cloud-init"]).optional(),
  ssh_user: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]*$/)
    .optional(),
});

const DISK_FILES = ["disk.qcow2", "disk.img", "disk.raw"];
const FILE_EXT = /\.(qcow2|img)$/;

function formatOf(path: string): "qcow2" | "raw" {
  const head = Buffer.alloc(4);
  try {
    const fd = openSync(path, "r");
    readSync(fd, head, 0, 4, 0);
    closeSync(fd);
  } catch {
    return "raw";
  }
  // qcow2 files start with "QFI\xfb"; anything else is used as raw.
  return head.toString("latin1") === "QFI\xfb" ? "qcow2" : "raw";
}

function fromDir(dir: string, name: string): ResolvedImage | null {
  const diskFile = DISK_FILES.find((f) => existsSync(join(dir, f)));
  if (!diskFile) return null;
  let m: z.infer<typeof manifestSchema> = {};
  const manifest = join(dir, "image.json");
  if (existsSync(manifest)) {
    const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(manifest, "utf8")));
    if (parsed.success) m = parsed.data;
  }
  const hasKernel = existsSync(join(dir, "vmlinuz")) && existsSync(join(dir, "initrd.img"));
  const boot = m.boot ?? (hasKernel ? "kernel" : "disk");
  const disk = join(dir, diskFile);
  return {
    name,
    path: dir,
    boot,
    description: m.description ?? null,
    os: m.os ?? null,
    disk,
    diskFormat: formatOf(disk),
    kernel: boot === "kernel" ? join(dir, "vmlinuz") : null,
    initrd: boot === "kernel" ? join(dir, "initrd.img") : null,
    cmdline: m.cmdline ?? "root=/dev/vda rw console=ttyS0",
    keyInjection: m.key_injection ?? (boot === "kernel" ? "cmdline" : "cloud-init"),
    sshUser: m.ssh_user ?? "root",
  };
}

function fromFile(path: string, name: string): ResolvedImage {
  return {
    name,
    path,
    boot: "disk",
    description: null,
    os: null,
    disk: path,
    diskFormat: formatOf(path),
    kernel: null,
    initrd: null,
    cmdline: "",
    keyInjection: "cloud-init",
    sshUser: "root",
  };
}

/** Every usable image in `imagesDir`, sorted by name; a missing directory has none. */
export function listImages(imagesDir: string): ResolvedImage[] {
  let entries: string[];
  try {
    entries = readdirSync(imagesDir);
  } catch {
    return [];
  }
  const out: ResolvedImage[] = [];
  for (const entry of entries.sort()) {
    if (entry.startsWith(".")) continue;
    const full = join(imagesDir, entry);
    let st;
    try {
      st = statSync(full);
    } catch {
      continue; // dangling symlink
    }
    if (st.isDirectory()) {
      const img = fromDir(full, entry);
      if (img) out.push(img);
    } else if (st.isFile() && FILE_EXT.test(entry)) {
      out.push(fromFile(full, entry.replace(FILE_EXT, "")));
    }
  }
  return out;
}

/** Find `name` in `imagesDir`, or throw ImageNotFoundError listing what is there. */
export function resolveImage(imagesDir: string, name: string): ResolvedImage {
  assertImageName(name);
  const all = listImages(imagesDir);
  const hit = all.find((i) => i.name === name);
  if (!hit)
    throw new ImageNotFoundError(
      name,
      all.map((i) => i.name),
      imagesDir,
    );
  return hit;
}

/** The public ImageInfo view of a resolved image. */
export function toImageInfo(i: ResolvedImage): ImageInfo {
  return { name: i.name, path: i.path, boot: i.boot, description: i.description, os: i.os };
}
