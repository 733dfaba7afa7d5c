import { z } from "zod";
import { VM_DEFAULTS } from "./vm-defaults";

/**
 * The VM and host-operator variables, one schema for every reader: loadConfig (the services and,
 * through their config, the host operators) and the VM CLI (which parses only these, so an
 * unrelated bad variable on a host cannot break it). The directories and the URI stay optional here so that a reader can tell a value
 * the operator set from a default (the host operators pass only set values on to the VM CLI, which
 * otherwise applies the host's own settings).
 */
export const VM_ENV = {
  SVC_VM_IMAGES_DIR: z.string().optional(),
  SVC_VM_DISKS_DIR: z.string().optional(),
  SVC_LIBVIRT_URI: z.string().optional(),
  SVC_VM_DEFAULT_IMAGE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "an image name: lower-case letters, digits, '.', '_', '-'")
    .default(VM_DEFAULTS.image),
  SVC_VM_DEFAULT_NETWORK: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a libvirt network name, or 'user'")
    .default(VM_DEFAULTS.network),
  SVC_VM_DRIVER: z.enum(["auto", "libvirt", "kcli"]).default("auto"),
  SVC_VM_VIRT_TYPE: z.enum(["auto", "kvm", "qemu"]).default("auto"),
  SVC_VM_SSH_PUBKEY: z.string().optional(),
  SVC_VM_SSH_PRIVKEY: z.string().optional(),
  SVC_VM_CLI: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const v = raw?.trim();
      if (!v) return ["svc-vm"];
      if (!v.startsWith("[")) return [v];
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        parsed = undefined;
      }
      if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((w) => typeof w === "string" && w !== "")) return parsed as string[];
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: "a path, or a JSON array of non-empty strings" });
      return z.NEVER;
    }),
};

const vmEnvSchema = z.object(VM_ENV);
type VmEnvValues = z.infer<typeof vmEnvSchema>;

/** The VM settings every reader agrees on (SvcConfig.vm). */
export interface VmSettingsConfig {
  /** Base images, one directory or qcow2 per image name (SVC_VM_IMAGES_DIR). */
  readonly imagesDir: string;
  /** Per-VM overlays, seed ISOs and console logs (SVC_VM_DISKS_DIR). */
  readonly disksDir: string;
  /** libvirt connection URI (SVC_LIBVIRT_URI). */
  readonly libvirtUri: string;
  /** The image a VM is created from when the caller names none (SVC_VM_DEFAULT_IMAGE). */
  readonly defaultImage: string;
  /** The network a VM is attached to when the caller names none (SVC_VM_DEFAULT_NETWORK). */
  readonly defaultNetwork: string;
  /** Backend: auto = kcli when it is on PATH, else libvirt (SVC_VM_DRIVER). */
  readonly driver: "auto" | "libvirt" | "kcli";
  /** Domain type: kvm, qemu (TCG), or auto = kvm when /dev/kvm is usable (SVC_VM_VIRT_TYPE). */
  readonly virtType: "auto" | "kvm" | "qemu";
  /** Public key file injected into new VMs (SVC_VM_SSH_PUBKEY). */
  readonly sshPubkey?: string;
  /** Private key file ansible uses to reach VMs (SVC_VM_SSH_PRIVKEY). */
  readonly sshPrivkey?: string;
  /** The VM CLI on the host as argv words (SVC_VM_CLI: a path or a JSON array; default svc-vm). */
  readonly cli: readonly string[];
  /** The values the operator set, not defaulted: passed on to the VM CLI on the host. */
  readonly explicit: { readonly disksDir?: string; readonly libvirtUri?: string };
}

/** SvcConfig.vm from the parsed variables (empty strings were dropped before parsing). */
export function vmSettingsOf(e: VmEnvValues): VmSettingsConfig {
  return {
    imagesDir: e.SVC_VM_IMAGES_DIR ?? VM_DEFAULTS.imagesDir,
    disksDir: e.SVC_VM_DISKS_DIR ?? VM_DEFAULTS.disksDir,
    libvirtUri: e.SVC_LIBVIRT_URI ?? VM_DEFAULTS.libvirtUri,
    defaultImage: e.SVC_VM_DEFAULT_IMAGE,
    defaultNetwork: e.SVC_VM_DEFAULT_NETWORK,
    driver: e.SVC_VM_DRIVER,
    virtType: e.SVC_VM_VIRT_TYPE,
    sshPubkey: e.SVC_VM_SSH_PUBKEY,
    sshPrivkey: e.SVC_VM_SSH_PRIVKEY,
    cli: e.SVC_VM_CLI,
    explicit: { disksDir: e.SVC_VM_DISKS_DIR, libvirtUri: e.SVC_LIBVIRT_URI },
  };
}

/**
 * Only the VM variables, parsed with the schema loadConfig uses (for the VM CLI, whose main.ts
 * passes its environment). Empty means unset, as in loadConfig. Throws with every bad variable named.
 */
export function vmSettingsFromEnv(env: Record<string, string | undefined>): VmSettingsConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in VM_ENV && v !== undefined && v !== ""));
  const r = vmEnvSchema.safeParse(cleaned);
  if (!r.success) throw new Error(`invalid VM settings: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return vmSettingsOf(r.data);
}
