import { readFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { vmSettingsFromEnv as vmConfigFromEnv } from "@svc/config";

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

/**
 * VM settings from the VM CLI's environment (its main.ts passes it), parsed by @svc/config's VM
 * schema (the one the services use). The VM CLI reads only these variables, so an unrelated bad
 * variable on the host cannot break it.
 */
export function vmSettingsFromEnv(env: Record<string, string | undefined>): VmSettings {
  const c = vmConfigFromEnv(env);
  return {
    imagesDir: c.imagesDir,
    disksDir: c.disksDir,
    libvirtUri: c.libvirtUri,
    virtType: c.virtType,
    driver: c.driver,
    sshPubkeyPaths: c.sshPubkey ? [c.sshPubkey] : defaultPubkeyPaths(env),
  };
}

/**
 * The default public keys, in the order ssh tries them: ed25519, ecdsa, rsa, first in $HOME, then
 * in the home of the account running the CLI, then (under sudo) in the invoking user's home.
 */
export function defaultPubkeyPaths(env: Record<string, string | undefined>): string[] {
  const homes = [env.HOME || homedir(), accountHome(), env.SUDO_USER ? sudoUserHome(env.SUDO_USER) : undefined];
  const unique = [...new Set(homes.filter((h): h is string => Boolean(h)))];
  return unique.flatMap((h) => ["id_ed25519.pub", "id_ecdsa.pub", "id_rsa.pub"].map((f) => `${h.replace(/\/+$/, "")}/.ssh/${f}`));
}

function accountHome(): string | undefined {
  try {
    return userInfo().homedir;
  } catch {
    return undefined;
  }
}

function sudoUserHome(user: string): string | undefined {
  if (!/^[a-z_][a-z0-9_.-]{0,31}$/i.test(user)) return undefined;
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${user}:`));
    return line?.split(":")[5] || undefined;
  } catch {
    return undefined;
  }
}
