import { homedir } from "node:os";
import { z } from "zod";

/** Where VM files live and which backend manages them. */
export interface VmSettings {
  /** Base images: `<imagesDir>/<image>/` or `<imagesDir>/<image>.qcow2` (SVC_VM_IMAGES_DIR). */
  imagesDir: string;
  /** Per-VM overlays, seed ISOs and console logs: `<disksDir>/<vm>/` (SVC_VM_DISKS_DIR). */
  disksDir: string;
  /** libvirt connection URI (SVC_LIBVIRT_URI). */
  libvirtUri: string;
  /** Domain type: kvm, qemu (TCG), or auto = kvm when /dev/kvm and CPU virtualization flags are usable. */
  virtType: "auto" | "kvm" | "qemu";
  /** Backend: auto = kcli when it is on PATH, else libvirt (SVC_VM_DRIVER). */
  driver: "auto" | "libvirt" | "kcli";
  /** Public key files injected when the caller names none (SVC_VM_SSH_PUBKEY, else ~/.ssh/id_*.pub). */
  sshPubkeyPaths: string[];
}

const schema = z.object({
  SVC_VM_IMAGES_DIR: z.string().min(1).default("/var/lib/svc/images"),
  SVC_VM_DISKS_DIR: z.string().min(1).default("/var/lib/svc/vms"),
  SVC_LIBVIRT_URI: z.string().min(1).default("qemu:///system"),
  SVC_VM_VIRT_TYPE: z.enum(["auto", "kvm", "qemu"]).default("auto"),
  SVC_VM_DRIVER: z.enum(["auto", "libvirt", "kcli"]).default("auto"),
  SVC_VM_SSH_PUBKEY: z.string().min(1).optional(),
});

/**
 * VM settings from the environment. The VM CLI reads only these variables (not the whole
 * service config), so an unrelated bad variable on the host cannot break it.
 */
export function vmSettingsFromEnv(env: Record<string, string | undefined> = process.env): VmSettings {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in schema.shape && v !== undefined && v !== ""));
  const r = schema.safeParse(cleaned);
  if (!r.success) throw new Error(`invalid VM settings: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const e = r.data;
  const home = homedir();
  return {
    imagesDir: e.SVC_VM_IMAGES_DIR,
    disksDir: e.SVC_VM_DISKS_DIR,
    libvirtUri: e.SVC_LIBVIRT_URI,
    virtType: e.SVC_VM_VIRT_TYPE,
    driver: e.SVC_VM_DRIVER,
    sshPubkeyPaths: e.SVC_VM_SSH_PUBKEY ? [e.SVC_VM_SSH_PUBKEY] : ["id_ed25519.pub", "id_ecdsa.pub", "id_rsa.pub"].map((f) => `${home}/.ssh/${f}`),
  };
}
