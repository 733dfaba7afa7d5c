import type { DagDefinition } from "@svc/dags";
import { renderTaskArgs } from "../src/preview";
import { ansibleClusterNodes } from "./ansible-cluster-nodes";
import { loadCatalogue } from "./load-catalogue";
import { simulateRun } from "./simulate-run";

let dag: DagDefinition;
beforeAll(async () => {
  dag = (await loadCatalogue()).cluster_initial_deployment!;
});

const CASES: [string, string][] = [
  ["ocp", "sno"],
  ["ocp", "full"],
  ["lab-2", "compact"],
  ["svccat-ocp", "full"],
  ["a", "full"],
];

test.each(CASES)("cluster %s (%s): the DAG creates exactly the nodes Ansible lists, each with the MAC agent-config.yaml pins", (clusterName, size) => {
  const nodes = ansibleClusterNodes(clusterName, size);
  expect(nodes.length).toBe({ sno: 1, compact: 3, full: 5 }[size]);
  const conf = { cluster_name: clusterName, deployment_size: size };
  const created = simulateRun(dag, conf).ran.filter((t) => t.startsWith("create_"));
  const rendered = created.map((taskId) => {
    // The placement step's output: every node is pinned to the host it chose.
    const args = renderTaskArgs(dag, taskId, conf, { outputs: { validate_host: { ok: true, host: "local" } } }).args;
    return { name: args.name, mac: (args.macs as string[])[0] };
  });
  expect(rendered).toEqual(nodes.map((n) => ({ name: n.name, mac: n.mac })));
});
