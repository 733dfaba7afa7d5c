import { z } from "zod";

const name = z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '.', '_' and '-'");
// eslint-disable-next-line no-control-regex -- control characters are what this rejects
const ABSOLUTE_PATH = z.string().regex(/^\/[^\x00-\x1f]*$/, "an absolute path without control characters");

/** The libvirt storage pool and network the host plugins set up (merged into the config's schema; SvcConfig.libvirt). */
export const LIBVIRT_ENV = {
  SVC_LIBVIRT_POOL: name.default("default"),
  SVC_LIBVIRT_POOL_DIR: ABSOLUTE_PATH.default("/var/lib/libvirt/images"),
  SVC_LIBVIRT_NETWORK: name.default("default"),
};

type LibvirtEnv = z.infer<z.ZodObject<typeof LIBVIRT_ENV>>;

/** SvcConfig.libvirt: what the host plugins create or check on the hypervisor. */
export interface LibvirtSettings {
  /** Storage pool name (SVC_LIBVIRT_POOL). */
  readonly pool: string;
  /** The pool's directory (SVC_LIBVIRT_POOL_DIR). */
  readonly poolDir: string;
  /** Network name (SVC_LIBVIRT_NETWORK). */
  readonly network: string;
}

export function libvirtSettingsOf(e: LibvirtEnv): LibvirtSettings {
  return { pool: e.SVC_LIBVIRT_POOL, poolDir: e.SVC_LIBVIRT_POOL_DIR, network: e.SVC_LIBVIRT_NETWORK };
}
