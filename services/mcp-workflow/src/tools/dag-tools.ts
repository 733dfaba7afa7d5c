import { z } from "zod";
import { paramsObjectSchema } from "@svc/dags";
import { defineTool, truncateText, type ToolDef } from "@svc/mcp";
import type { WorkflowToolDeps } from "../deps";
import { DagSummary, dagIdField, dagSummary, limitField } from "../shapes";

const DagDetails = DagSummary.extend({
  owners: z.array(z.string()),
  max_active_runs: z.number(),
  params_schema: z.record(z.string(), z.unknown()).describe("JSON Schema the trigger conf must satisfy"),
  required_params: z.array(z.string()),
  examples: z.array(z.string()),
  tasks: z.array(z.object({ task_id: z.string(), operator: z.string(), depends_on: z.array(z.string()), retries: z.number() })),
});

const PauseResult = z.object({ dag_id: z.string(), is_paused: z.boolean() });

/** Catalogue tools: list, details, source, pause, import errors. */
export function dagTools(d: WorkflowToolDeps): ToolDef[] {
  const { api } = d;
  return [
    defineTool({
      name: "list_dags",
      title: "List DAGs",
      description: "List workflows (DAGs) in the catalogue, compactly. Filter by tag, paused state or text (matches id and description).",
      tier: "read",
      action: "read",
      input: z.object({
        tag: z.string().max(100).optional().describe("only DAGs with this tag"),
        paused: z.boolean().optional().describe("only paused (true) or unpaused (false) DAGs"),
        text: z.string().max(200).optional().describe("case-insensitive substring of the DAG id or description"),
        limit: limitField(20, 100),
      }),
      output: z.object({ dags: z.array(DagSummary), total: z.number().describe("matches before the limit") }),
      async run(a) {
        const all = await api.listDags({ tags: a.tag ? [a.tag] : undefined, paused: a.paused, limit: 10_000 });
        const needle = a.text?.toLowerCase();
        const hits = all.dags.map(dagSummary).filter((x) => !needle || x.dag_id.toLowerCase().includes(needle) || (x.description ?? "").toLowerCase().includes(needle));
        const dags = hits.slice(0, a.limit);
        // The text names the DAGs only: the structured content carries the rest (no second copy of every field).
        const text = dags.map((x) => `${x.dag_id}${x.is_paused ? " (paused)" : ""}${x.has_import_errors ? " (import errors)" : ""}`).join(", ");
        return { data: { dags, total: hits.length }, text: `${hits.length} DAG(s)${hits.length > dags.length ? `, first ${dags.length}` : ""}: ${text}` };
      },
    }),
    defineTool({
      name: "get_dag_details",
      title: "DAG details",
      description: "One DAG: schedule, tasks and their dependencies, and the params JSON Schema its trigger conf must satisfy.",
      tier: "read",
      action: "read",
      input: z.object({ dag_id: dagIdField }),
      output: DagDetails,
      async run(a) {
        const [dag, entry] = await Promise.all([api.getDag(a.dag_id), api.getDagDefinition(a.dag_id)]);
        const def = entry.definition;
        const data = {
          ...dagSummary(dag),
          owners: def.owners,
          max_active_runs: def.max_active_runs,
          params_schema: paramsObjectSchema(def),
          required_params: def.required_params,
          examples: def.examples.slice(0, 5),
          tasks: def.tasks.map((t) => ({ task_id: t.task_id, operator: t.operator, depends_on: t.depends_on, retries: t.retries })),
        };
        const params = Object.keys(def.params)
          .map((k) => (def.required_params.includes(k) ? `${k}*` : k))
          .join(", ");
        return { data, text: `${def.dag_id}: ${def.tasks.length} task(s); params: ${params || "none"}${data.is_paused ? "; paused" : ""}` };
      },
    }),
    defineTool({
      name: "get_dag_source",
      title: "DAG source",
      description: "The YAML source of a DAG file, cut to max_bytes.",
      tier: "read",
      action: "read",
      input: z.object({ dag_id: dagIdField, max_bytes: z.number().int().min(256).max(200_000).default(20_000) }),
      output: z.object({ dag_id: z.string(), source: z.string(), truncated: z.boolean() }),
      async run(a) {
        const dag = await api.getDag(a.dag_id);
        const { content } = await api.getDagSource(dag.file_token);
        const buf = Buffer.from(content, "utf8");
        const truncated = buf.length > a.max_bytes;
        const source = truncated ? buf.subarray(0, a.max_bytes).toString("utf8") : content;
        return { data: { dag_id: a.dag_id, source, truncated }, text: source };
      },
    }),
    ...(["pause", "unpause"] as const).map((verb) =>
      defineTool({
        name: `${verb}_dag`,
        title: `${verb === "pause" ? "Pause" : "Unpause"} a DAG`,
        description: verb === "pause" ? "Pause a DAG: no new runs start (running ones finish)." : "Unpause a DAG so its queued and scheduled runs start.",
        tier: "write",
        action: "pause_dag",
        idempotent: true,
        input: z.object({ dag_id: dagIdField }),
        output: PauseResult,
        async run(a) {
          const dag = await api.setPaused(a.dag_id, verb === "pause");
          return { data: { dag_id: dag.dag_id, is_paused: Boolean(dag.is_paused) }, text: `${dag.dag_id} is ${dag.is_paused ? "paused" : "unpaused"}` };
        },
      }),
    ),
    defineTool({
      name: "list_import_errors",
      title: "DAG import errors",
      description: "DAG files that failed to load, with the reason (cut to a few lines each).",
      tier: "read",
      action: "read",
      input: z.object({ limit: limitField(20, 100) }),
      output: z.object({ import_errors: z.array(z.object({ filename: z.string(), error: z.string(), timestamp: z.string().nullable() })), total: z.number() }),
      async run(a) {
        const res = await api.listImportErrors({ limit: a.limit });
        const import_errors = res.import_errors.map((e) => ({
          filename: e.filename ?? "",
          error: truncateText(String(e.stack_trace ?? ""), 800).text,
          timestamp: e.timestamp ?? null,
        }));
        const text = import_errors.length ? import_errors.map((e) => `${e.filename}: ${e.error.split("\n")[0]}`).join("\n") : "no import errors";
        return { data: { import_errors, total: res.total_entries }, text };
      },
    }),
  ];
}
