import YAML from "yaml";
import { dagEdges, topoOrder } from "@svc/engine";
import type { Command } from "./types";

/** `dags show <dag_id>`: tasks in dependency order, their upstreams, and the edge list. */
export const dagsShowCommand: Command = {
  group: "dags",
  name: "show",
  summary: "Show a DAG's tasks and dependencies",
  args: ["dag_id"],
  options: [],
  async run(ctx, { positionals, format }) {
    const api = ctx.api();
    const dag = await api.getDagDetails(positionals[0]!);
    const { tasks } = await api.listTasks(dag.dag_id);
    const graph = tasks.map((t) => ({ task_id: t.task_id, depends_on: t.upstream_task_ids }));
    const byId = new Map(tasks.map((t) => [t.task_id, t]));
    const ordered = topoOrder(graph).map((id) => byId.get(id)!);
    const edges = dagEdges(graph);
    const data = {
      dag_id: dag.dag_id,
      description: dag.description,
      schedule: dag.schedule_interval?.value ?? null,
      is_paused: dag.is_paused,
      params: Object.fromEntries(Object.entries(dag.params).map(([k, p]) => [k, { default: p.value, ...p.schema }])),
      tasks: ordered.map((t) => ({
        task_id: t.task_id,
        operator: t.operator_name,
        upstream: t.upstream_task_ids,
        downstream: t.downstream_task_ids,
        trigger_rule: t.trigger_rule,
        retries: t.retries,
      })),
      edges: edges.map(([from, to]) => ({ from, to })),
    };
    if (format === "json") return (ctx.io.stdout(JSON.stringify(data, null, 2) + "\n"), 0);
    if (format === "yaml") return (ctx.io.stdout(YAML.stringify(data)), 0);

    const lines = [`DAG ${dag.dag_id}${dag.description ? `: ${dag.description}` : ""}`];
    lines.push(`schedule: ${data.schedule ?? "none (manual)"} · ${dag.is_paused ? "paused" : "active"}`);
    const params = Object.entries(dag.params)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, p]) => (p.value === null ? `${k} (required)` : `${k}=${JSON.stringify(p.value)}`));
    if (params.length) lines.push(`params: ${params.join(", ")}`);
    lines.push("", "tasks (dependency order):");
    for (const t of data.tasks) {
      const after = t.upstream.length ? ` <- ${t.upstream.join(", ")}` : "";
      const rule = t.trigger_rule !== "all_success" ? ` [${t.trigger_rule}]` : "";
      lines.push(`  ${t.task_id} (${t.operator})${after}${rule}`);
    }
    lines.push("", "edges:");
    lines.push(...(edges.length ? edges.map(([a, b]) => `  ${a} -> ${b}`) : ["  (none)"]));
    ctx.io.stdout(lines.join("\n") + "\n");
    return 0;
  },
};
