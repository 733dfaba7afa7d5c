import { VM_DEFAULTS } from "@svc/config";
import { CATALOG_PATHS } from "../src/paths";

/** Platform settings the catalogue's param defaults read, as the engine passes them. */
export const TEST_SETTINGS: Record<string, string> = {
  domain: "lab.example.com",
  cluster_name: "ocp",
  admin_user: "admin",
  inventory_dir: "/var/lib/svc/inventory",
  playbooks_dir: CATALOG_PATHS.playbooksDir,
  default_image: VM_DEFAULTS.image,
  vm_network: VM_DEFAULTS.network,
};
