import type { SvcConfig } from "./config";
import { resolveSshFiles } from "./ssh-files";

/**
 * The settings the host scripts need, resolved exactly as the services resolve them, as
 * `KEY=value` lines (one per line; values never contain a newline). Read by
 * scripts/development/prepare-host.sh through `svc-config host`.
 */
export function hostSettingsLines(config: SvcConfig, home?: string): string[] {
  const ssh = resolveSshFiles(config.ssh, home);
  const values: Record<string, string | number> = {
    SVC_SSH_HOST: config.ssh.host,
    SVC_SSH_PORT: config.ssh.port,
    SVC_SSH_USER: config.ssh.user,
    SVC_SSH_KEY_PATH: ssh.keyPath,
    SVC_SSH_KNOWN_HOSTS: ssh.knownHostsPath,
    SVC_VM_IMAGES_DIR: config.vm.imagesDir,
    SVC_VM_DISKS_DIR: config.vm.disksDir,
    SVC_VM_DEFAULT_IMAGE: config.vm.defaultImage,
    SVC_VM_DEFAULT_NETWORK: config.vm.defaultNetwork,
    SVC_INVENTORY_DIR: config.inventoryDir,
    SVC_PLAYBOOKS_DIR: config.playbooksDir,
  };
  return Object.entries(values).map(([k, v]) => `${k}=${String(v).replace(/[\r\n]/g, " ")}`);
}
