import { spawnSync } from "node:child_process";
import { CATALOG_PATHS } from "../src/paths";

/** One node as the cluster role's defaults list it. */
export interface AnsibleNode {
  name: string;
  role: string;
  mac: string;
  ip: string;
}

/** The node list the cluster role's defaults (playbooks/roles/cluster/defaults/main.yml) derive (what agent-config.yaml is rendered from), by real Ansible. */
export function ansibleClusterNodes(clusterName: string, size: string): AnsibleNode[] {
  const r = spawnSync(
    "ansible",
    [
      "localhost",
      "-i",
      "localhost,",
      "-c",
      "local",
      "-m",
      "ansible.builtin.debug",
      "-a",
      "var=cluster_nodes",
      "-e",
      "@roles/cluster/defaults/main.yml",
      "-e",
      JSON.stringify({ cluster_name: clusterName, deployment_size: size }),
    ],
    { cwd: CATALOG_PATHS.playbooksDir, encoding: "utf8", env: { ...process.env, ANSIBLE_NOCOLOR: "1" } },
  );
  // "localhost | SUCCESS => { ...json... }"
  if (r.status !== 0 || !r.stdout.includes("SUCCESS =>")) throw new Error(`ansible failed: ${r.stdout}${r.stderr}`);
  return (JSON.parse(r.stdout.slice(r.stdout.indexOf("=>") + 2)) as { cluster_nodes: AnsibleNode[] }).cluster_nodes;
}
