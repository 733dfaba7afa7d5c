import { z } from "zod";
import { dagConcerns, runConcerns } from "@svc/assistant/observer";
import { defineTool, ToolInputError, type ToolDef } from "@svc/mcp";
import type { WorkflowToolDeps } from "../deps";
import { readLog } from "../log-view";
import { DagSummary, dagIdField, dagSummary, runIdField, RunSummary, runSummary, TaskSummary, taskSummary } from "../shapes";

const Finding = z.object({ concerns: z.array(z.string()), recommendations: z.array(z.string()) });

/** Composite tools: one call gathers what an agent needs to understand a DAG, a run, the system. */
export function insightTools(d: WorkflowToolDeps): ToolDef[] {
  const { api } = d;
  return [
    defineTool({
      name: "explore_dag",
      title: "Explore a DAG",
      description: "One call: the DAG's summary, task graph, params, its import error if any, recent runs with a success rate, concerns and recommendations.",
      tier: "read",
      action: "read",
      input: z.object({ dag_id: dagIdField, recent_runs: z.number().int().min(1).max(25).default(5) }),
      output: Finding.extend({
        dag: DagSummary,
        params: z.array(z.object({ name: z.string(), required: z.boolean(), type: z.string().nullable() })),
        tasks: z.array(z.object({ task_id: z.string(), operator: z.string(), depends_on: z.array(z.string()) })),
        import_error: z.string().nullable(),
        recent_runs: z.array(RunSummary.omit({ conf: true })),
        recent_success_rate: z.number().nullable(),
      }),
      async run(a) {
        const [dag, entry, runs, errors] = await Promise.all([
          api.getDag(a.dag_id),
          api.getDagDefinition(a.dag_id),
          api.listDagRuns({ dag_id: a.dag_id, order_by: "-logical_date", limit: a.recent_runs }),
          api.listImportErrors({ limit: 100 }),
        ]);
        const def = entry.definition;
        const importError = errors.import_errors.find((e) => e.filename === dag.fileloc);
        const recent = runs.dag_runs.map(runSummary).map(({ conf: _conf, ...r }) => r);
        const finished = recent.filter((r) => r.state === "success" || r.state === "failed");
        const rate = finished.length ? finished.filter((r) => r.state === "success").length / finished.length : null;
        const summary = dagSummary(dag);
        const found = dagConcerns(summary, recent, importError ? (String(importError.stack_trace ?? "").split("\n")[0] ?? "") : null);
        const data = {
          dag: summary,
          params: Object.entries(def.params).map(([name, p]) => ({ name, required: def.required_params.includes(name), type: typeof p.type === "string" ? p.type : null })),
          tasks: def.tasks.map((t) => ({ task_id: t.task_id, operator: t.operator, depends_on: t.depends_on })),
          import_error: importError ? String(importError.stack_trace ?? "").slice(0, 800) : null,
          recent_runs: recent,
          recent_success_rate: rate,
          ...found,
        };
        const text = `${def.dag_id}: ${def.tasks.length} task(s), ${recent.length} recent run(s)${rate === null ? "" : `, ${Math.round(rate * 100)}% success`}\n${found.concerns.map((c) => `concern: ${c}`).join("\n")}`;
        return { data, text: text.trim() };
      },
    }),
    defineTool({
      name: "diagnose_dag_run",
      title: "Diagnose a DAG run",
      description: "One call: a run (the latest when run_id is omitted), its task states, each failed task with the tail of its log, concerns and recommendations.",
      tier: "read",
      action: "read",
      input: z.object({
        dag_id: dagIdField,
        run_id: runIdField.optional(),
        log_tail_lines: z.number().int().min(1).max(200).default(15),
        max_log_bytes: z.number().int().min(256).max(16_384).default(1500).describe("per failed task"),
      }),
      output: Finding.extend({
        run: RunSummary,
        task_counts: z.record(z.string(), z.number()),
        failed_tasks: z.array(TaskSummary.extend({ log_tail: z.string() })),
        unfinished_tasks: z.array(z.string()),
      }),
      async run(a) {
        let runId = a.run_id;
        if (!runId) {
          const latest = await api.listDagRuns({ dag_id: a.dag_id, order_by: "-logical_date", limit: 1 });
          runId = latest.dag_runs[0]?.dag_run_id ?? undefined;
          if (!runId) throw new ToolInputError(`DAG '${a.dag_id}' has no runs yet`, "dag_id");
        }
        const [run, tis, dag] = await Promise.all([api.getDagRun(a.dag_id, runId), api.listTaskInstances(a.dag_id, runId, { limit: 10_000 }), api.getDag(a.dag_id)]);
        const tasks = tis.task_instances.map(taskSummary);
        const task_counts: Record<string, number> = {};
        for (const t of tasks) task_counts[t.state ?? "none"] = (task_counts[t.state ?? "none"] ?? 0) + 1;
        const failed = tasks.filter((t) => t.state === "failed");
        const failed_tasks = await Promise.all(
          failed.map(async (t) => ({ ...t, log_tail: (await readLog(api, a.dag_id, runId, t.task_id, { tailLines: a.log_tail_lines, maxBytes: a.max_log_bytes })).content })),
        );
        const summary = runSummary(run);
        const found = runConcerns(summary, tasks, Boolean(dag.is_paused));
        const data = {
          run: summary,
          task_counts,
          failed_tasks,
          unfinished_tasks: tasks.filter((t) => !t.state || !["success", "failed", "skipped", "upstream_failed"].includes(t.state)).map((t) => t.task_id),
          ...found,
        };
        const text = [
          `${summary.dag_id} ${summary.run_id}: ${summary.state}`,
          ...failed_tasks.map((t) => `failed ${t.task_id} (try ${t.try_number}): ${t.log_tail.split("\n").slice(-1)[0] ?? ""}`),
          ...found.concerns.map((c) => `concern: ${c}`),
        ].join("\n");
        return { data, text };
      },
    }),
    defineTool({
      name: "get_system_health",
      title: "System health",
      description: "Metadatabase and scheduler health, DAG and import-error counts, and runs by state.",
      tier: "read",
      action: "read",
      input: z.object({}),
      output: Finding.extend({
        metadatabase: z.string(),
        scheduler: z.string(),
        latest_scheduler_heartbeat: z.string().nullable(),
        dags: z.object({ total: z.number(), paused: z.number() }),
        import_errors: z.number(),
        runs: z.object({ queued: z.number(), running: z.number(), failed: z.number(), success: z.number() }),
      }),
      async run() {
        const [h, all, paused, errs, ...counts] = await Promise.all([
          api.health(),
          api.listDags({ limit: 1 }),
          api.listDags({ limit: 1, paused: true }),
          api.listImportErrors({ limit: 1 }),
          ...(["queued", "running", "failed", "success"] as const).map((s) => api.listDagRuns({ state: [s], limit: 1 })),
        ]);
        const runs = { queued: counts[0]!.total_entries, running: counts[1]!.total_entries, failed: counts[2]!.total_entries, success: counts[3]!.total_entries };
        const concerns: string[] = [];
        const recommendations: string[] = [];
        if (h.scheduler.status !== "healthy") {
          concerns.push("no scheduler heartbeat in the last 30 s: runs will not start");
          recommendations.push("start the scheduler service and check its logs");
        }
        if (errs.total_entries > 0) {
          concerns.push(`${errs.total_entries} DAG file(s) fail to import`);
          recommendations.push("call list_import_errors and fix the files");
        }
        if (runs.failed > 0) recommendations.push("call list_dag_runs with state failed, then diagnose_dag_run");
        const data = {
          metadatabase: h.metadatabase.status ?? "unknown",
          scheduler: h.scheduler.status ?? "unknown",
          latest_scheduler_heartbeat: h.scheduler.latest_scheduler_heartbeat ?? null,
          dags: { total: all.total_entries, paused: paused.total_entries },
          import_errors: errs.total_entries,
          runs,
          concerns,
          recommendations,
        };
        return {
          data,
          text: `db ${data.metadatabase}, scheduler ${data.scheduler}; ${all.total_entries} DAGs; runs queued ${runs.queued} running ${runs.running} failed ${runs.failed}`,
        };
      },
    }),
  ];
}
