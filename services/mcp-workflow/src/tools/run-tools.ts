import { z } from "zod";
import { defineTool, ToolInputError, type ToolDef } from "@svc/mcp";
import type { WorkflowToolDeps } from "../deps";
import { dagIdField, limitField, runIdField, RunSummary, runSummary, TaskSummary } from "../shapes";
import { triggerRun } from "../trigger";
import { waitForRun } from "../wait-run";

const triggerInput = {
  dag_id: dagIdField,
  conf: z.record(z.string(), z.unknown()).default({}).describe("run parameters, checked against the DAG's params schema (see get_dag_details)"),
  idempotency_key: z.string().min(1).max(200).optional().describe("retrying with the same key returns the same run instead of a second one"),
};
const TriggerResult = z.object({ run: RunSummary, deduplicated: z.boolean() });
const RUN_STATES = ["queued", "running", "success", "failed"] as const;

/** Runs: trigger (plain and waiting), list, one. */
export function runTools(d: WorkflowToolDeps): ToolDef[] {
  const { api } = d;
  return [
    defineTool({
      name: "trigger_dag",
      title: "Trigger a DAG run",
      description: "Start a run of a DAG with a conf validated against its params. Returns at once with the queued run; use get_dag_run or trigger_dag_and_wait to follow it.",
      tier: "write",
      action: "trigger_run",
      input: z.object({ ...triggerInput, note: z.string().max(1000).optional() }),
      output: TriggerResult,
      async run(a) {
        const { run, deduplicated } = await triggerRun(api, a, d.role);
        const s = runSummary(run);
        return { data: { run: s, deduplicated }, text: `${deduplicated ? "existing" : "created"} run ${s.run_id} of ${s.dag_id}: ${s.state}` };
      },
    }),
    defineTool({
      name: "trigger_dag_and_wait",
      title: "Trigger a DAG run and wait",
      description: "Trigger a run and wait until it finishes or timeout_seconds pass, sending a progress notification as tasks finish. Returns the run and its tasks.",
      tier: "write",
      action: "trigger_run",
      input: z.object({ ...triggerInput, timeout_seconds: z.number().int().min(1).max(3600).default(300) }),
      output: TriggerResult.extend({ tasks: z.array(TaskSummary), timed_out: z.boolean() }),
      async run(a, ctx) {
        const dag = await api.getDag(a.dag_id);
        if (dag.is_paused) throw new ToolInputError(`DAG '${a.dag_id}' is paused: its run would never start; call unpause_dag first`, "dag_id");
        const { run, deduplicated } = await triggerRun(api, a, d.role);
        const out = await waitForRun(api, a.dag_id, run.dag_run_id ?? "", { timeoutMs: a.timeout_seconds * 1000, pollMs: d.pollMs ?? 500, ctx });
        const s = runSummary(out.run);
        const failed = out.tasks.filter((t) => t.state === "failed").map((t) => t.task_id);
        const text = out.timed_out
          ? `run ${s.run_id} still ${s.state} after ${a.timeout_seconds}s`
          : `run ${s.run_id} ${s.state}${failed.length ? `; failed: ${failed.join(", ")} (see diagnose_dag_run)` : ""}`;
        return { data: { run: s, deduplicated, tasks: out.tasks, timed_out: out.timed_out }, text };
      },
    }),
    defineTool({
      name: "list_dag_runs",
      title: "List DAG runs",
      description: "Recent runs, newest first; filter by DAG and state.",
      tier: "read",
      action: "read",
      input: z.object({ dag_id: dagIdField.optional(), state: z.array(z.enum(RUN_STATES)).optional(), limit: limitField(10, 100) }),
      output: z.object({ runs: z.array(RunSummary), total: z.number() }),
      async run(a) {
        const res = await api.listDagRuns({ dag_id: a.dag_id, state: a.state, order_by: "-logical_date", limit: a.limit });
        const runs = res.dag_runs.map(runSummary);
        return { data: { runs, total: res.total_entries }, text: `${res.total_entries} run(s)\n${runs.map((r) => `${r.dag_id} ${r.run_id}: ${r.state}`).join("\n")}` };
      },
    }),
    defineTool({
      name: "get_dag_run",
      title: "One DAG run",
      description: "One run with its state and per-state task counts.",
      tier: "read",
      action: "read",
      input: z.object({ dag_id: dagIdField, run_id: runIdField }),
      output: z.object({ run: RunSummary, task_counts: z.record(z.string(), z.number()) }),
      async run(a) {
        const [run, tis] = await Promise.all([api.getDagRun(a.dag_id, a.run_id), api.listTaskInstances(a.dag_id, a.run_id, { limit: 10_000 })]);
        const task_counts: Record<string, number> = {};
        for (const t of tis.task_instances) task_counts[t.state ?? "none"] = (task_counts[t.state ?? "none"] ?? 0) + 1;
        const s = runSummary(run);
        return {
          data: { run: s, task_counts },
          text: `${s.run_id}: ${s.state}; tasks ${Object.entries(task_counts)
            .map(([k, v]) => `${k}=${v}`)
            .join(" ")}`,
        };
      },
    }),
  ];
}
