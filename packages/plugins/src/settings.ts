import type { SvcConfig } from "@svc/config";
import { z } from "zod";
import type { PluginSettings } from "./types";

const name = z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '.', '_' and '-'");
// eslint-disable-next-line no-control-regex -- control characters are what this rejects
const absPath = z.string().regex(/^\/[^\x00-\x1f]*$/, "an absolute path without control characters");

const pluginEnv = z.object({
  SVC_LIBVIRT_POOL: name.default("default"),
  SVC_LIBVIRT_POOL_DIR: absPath.default("/var/lib/libvirt/images"),
  SVC_LIBVIRT_NETWORK: name.default("default"),
});

/**
 * Plugin settings from the platform configuration (images directory, ports) and the libvirt
 * pool and network variables; parsed once at start. Throws listing every bad variable.
 */
export function pluginSettings(config: Pick<SvcConfig, "vm" | "http" | "ssh">, env: Record<string, string | undefined>): PluginSettings {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = pluginEnv.safeParse(cleaned);
  if (!parsed.success) throw new Error(`invalid configuration:\n  ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  ")}`);
  const e = parsed.data;
  if (!absPath.safeParse(config.vm.imagesDir).success) throw new Error("invalid configuration:\n  SVC_VM_IMAGES_DIR: an absolute path without control characters");
  return {
    imagesDir: config.vm.imagesDir.replace(/(.)\/+$/, "$1"),
    ports: [...new Set([config.http.assistantPort, config.http.webUiPort])],
    sshPort: config.ssh.port,
    poolName: e.SVC_LIBVIRT_POOL,
    poolDir: e.SVC_LIBVIRT_POOL_DIR,
    networkName: e.SVC_LIBVIRT_NETWORK,
  };
}
