import { posix } from "node:path";

/** Where the keys of a cloud host's instance are pinned, on the configured host (under the inventory directory). */
export function cloudKnownHostsPath(inventoryDir: string, host: string, vm: string): string {
  return posix.join(inventoryDir, "cloud-known-hosts", host, vm);
}
