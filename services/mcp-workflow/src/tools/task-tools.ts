import { z } from "zod";
import { defineTool, type ToolDef } from "@svc/mcp";
import type { WorkflowToolDeps } from "../deps";
import { readLog } from "../log-view";
import { dagIdField, limitField, runIdField, TaskSummary, taskSummary } from "../shapes";

const TASK_STATES = ["none", "scheduled", "queued", "running", "success", "failed", "up_for_retry", "up_for_reschedule", "upstream_failed", "skipped"] as const;

/** Task instances: list, logs (bounded), clear. */
export function taskTools(d: WorkflowToolDeps): ToolDef[] {
  const { api } = d;
  return [
    defineTool({
      name: "list_task_instances",
      title: "List task instances",
      description: "The tasks of one run with state, try and duration; filter by state.",
      tier: "read",
      action: "read",
      input: z.object({ dag_id: dagIdField, run_id: runIdField, state: z.array(z.enum(TASK_STATES)).optional(), limit: limitField(50, 500) }),
      output: z.object({ tasks: z.array(TaskSummary), total: z.number() }),
      async run(a) {
        const res = await api.listTaskInstances(a.dag_id, a.run_id, { state: a.state, limit: a.limit });
        const tasks = res.task_instances.map(taskSummary);
        return { data: { tasks, total: res.total_entries }, text: tasks.map((t) => `${t.task_id}: ${t.state ?? "none"} (try ${t.try_number})`).join("\n") || "no task instances" };
      },
    }),
    defineTool({
      name: "get_task_logs",
      title: "Task log",
      description: "A bounded view of one task try's log: optional case-insensitive filter, then the last tail_lines lines, then at most max_bytes (the end is kept).",
      tier: "read",
      action: "read",
      input: z.object({
        dag_id: dagIdField,
        run_id: runIdField,
        task_id: z.string().min(1).max(250),
        try_number: z.number().int().min(1).optional().describe("default: the latest try"),
        tail_lines: z.number().int().min(1).max(2000).default(100),
        grep: z.string().min(1).max(200).optional().describe("keep only lines containing this text (case-insensitive)"),
        max_bytes: z.number().int().min(256).max(65_536).default(8192),
      }),
      output: z.object({
        try_number: z.number(),
        content: z.string(),
        lines_returned: z.number(),
        lines_matched: z.number(),
        truncated: z.boolean(),
        finished: z.boolean(),
      }),
      async run(a) {
        const v = await readLog(api, a.dag_id, a.run_id, a.task_id, { tailLines: a.tail_lines, grep: a.grep, maxBytes: a.max_bytes, tryNumber: a.try_number });
        const head = `${a.task_id} try ${v.try_number}: ${v.lines_returned} line(s)${v.truncated ? ` of ${v.lines_matched}` : ""}${v.finished ? "" : " (still running)"}`;
        return { data: v, text: `${head}\n${v.content}` };
      },
    }),
    defineTool({
      name: "clear_task_instances",
      title: "Clear task instances",
      description: "Reset task instances so they run again (by default the failed ones of the given run). Destructive: their state is lost. dry_run reports what would be cleared.",
      tier: "destructive",
      action: "clear_task_instances",
      idempotent: true,
      input: z.object({
        dag_id: dagIdField,
        run_id: runIdField.optional().describe("one run; default: every run of the DAG"),
        task_ids: z.array(z.string().min(1).max(250)).max(500).optional(),
        only_failed: z.boolean().default(true),
        include_downstream: z.boolean().default(false),
        dry_run: z.boolean().default(false),
      }),
      output: z.object({ cleared: z.array(z.object({ run_id: z.string(), task_id: z.string() })), dry_run: z.boolean() }),
      async run(a) {
        const res = await api.clearTaskInstances(a.dag_id, {
          dag_run_id: a.run_id ?? null,
          task_ids: a.task_ids,
          only_failed: a.only_failed,
          include_downstream: a.include_downstream,
          dry_run: a.dry_run,
        });
        const cleared = res.task_instances.map((t) => ({ run_id: t.dag_run_id ?? "", task_id: t.task_id ?? "" }));
        return { data: { cleared, dry_run: a.dry_run }, text: `${a.dry_run ? "would clear" : "cleared"} ${cleared.length}: ${cleared.map((c) => c.task_id).join(", ")}` };
      },
    }),
  ];
}
