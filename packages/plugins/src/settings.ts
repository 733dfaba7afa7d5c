import type { SvcConfig } from "@svc/config";
import { z } from "zod";
import type { PluginSettings } from "./types";

// eslint-disable-next-line no-control-regex -- control characters are what this rejects
const absPath = z.string().regex(/^\/[^\x00-\x1f]*$/, "an absolute path without control characters");

/**
 * Plugin settings from the platform configuration (images directory, ports, the libvirt pool and
 * network), parsed once at start by loadConfig. Throws when the images directory is not absolute.
 */
export function pluginSettings(config: Pick<SvcConfig, "vm" | "http" | "ssh" | "libvirt">): PluginSettings {
  if (!absPath.safeParse(config.vm.imagesDir).success) throw new Error("invalid configuration:\n  SVC_VM_IMAGES_DIR: an absolute path without control characters");
  return {
    imagesDir: config.vm.imagesDir.replace(/(.)\/+$/, "$1"),
    ports: [...new Set([config.http.assistantPort, config.http.webUiPort])],
    sshPort: config.ssh.port,
    poolName: config.libvirt.pool,
    poolDir: config.libvirt.poolDir,
    networkName: config.libvirt.network,
  };
}
