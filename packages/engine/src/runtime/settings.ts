import type { SvcConfig } from "@svc/config";

/** Platform settings that DAG param defaults may reference as `{{ settings.<key> }}`. */
export function dagSettingsFromConfig(config: SvcConfig): Record<string, string> {
  return {
    domain: config.domain,
    cluster_name: config.clusterName,
    admin_user: config.auth.adminUser ?? "admin",
    inventory_dir: config.inventoryDir,
    playbooks_dir: config.playbooksDir,
  };
}
