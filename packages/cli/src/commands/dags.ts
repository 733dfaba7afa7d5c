import type { ApiDag, ApiDagRun, EngineApi } from "@svc/engine";
import { CliError, UsageError } from "../errors";
import { renderRows } from "../output";
import { dagsShowCommand } from "./dags-show";
import type { Command } from "./types";

const RUN_COLUMNS = ["dag_id", "run_id", "state", "execution_date", "start_date", "end_date"];
const TRIGGER_COLUMNS = [
  "conf",
  "dag_id",
  "dag_run_id",
  "data_interval_start",
  "data_interval_end",
  "end_date",
  "external_trigger",
  "last_scheduling_decision",
  "logical_date",
  "run_type",
  "start_date",
  "state",
];

/** Every DAG, page by page (the API caps pages at the maximum page limit). */
async function allDags(api: EngineApi): Promise<ApiDag[]> {
  const out: ApiDag[] = [];
  for (let offset = 0; ;) {
    const page = await api.listDags({ limit: 100, offset });
    out.push(...page.dags);
    offset += page.dags.length;
    if (!page.dags.length || offset >= page.total_entries) return out;
  }
}

function parseConf(raw: string | boolean | undefined): Record<string, unknown> | undefined {
  if (typeof raw !== "string") return undefined;
  let conf: unknown;
  try {
    conf = JSON.parse(raw);
  } catch (e) {
    throw new CliError(`-c/--conf is not valid JSON: ${(e as Error).message}`);
  }
  if (!conf || typeof conf !== "object" || Array.isArray(conf)) throw new CliError('-c/--conf must be a JSON object, e.g. \'{"vm_name": "web01"}\'');
  return conf as Record<string, unknown>;
}

function positiveInt(raw: string | boolean | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer`);
  return n;
}

const pauseCommand = (paused: boolean): Command => ({
  group: "dags",
  name: paused ? "pause" : "unpause",
  args: ["dag_id"],
  options: [],
  summary: paused ? "Pause a DAG (no new runs start)" : "Unpause a DAG (required before its runs start)",
  async run(ctx, { positionals, format }) {
    const dag = await ctx.api({ notify: !paused }).setPaused(positionals[0]!, paused);
    ctx.io.stdout(renderRows([dag], ["dag_id", "is_paused"], format));
    return 0;
  },
});

/** `dags list|pause|unpause|trigger|list-runs|list-import-errors|reserialize|show`. */
export const dagsCommands: Command[] = [
  {
    group: "dags",
    name: "list",
    summary: "List DAGs",
    args: [],
    options: [],
    async run(ctx, { format }) {
      const rows = (await allDags(ctx.api())).map((d) => ({ dag_id: d.dag_id, fileloc: d.fileloc, owners: d.owners.join(","), is_paused: d.is_paused }));
      ctx.io.stdout(renderRows(rows, ["dag_id", "fileloc", "owners", "is_paused"], format));
      return 0;
    },
  },
  pauseCommand(true),
  pauseCommand(false),
  {
    group: "dags",
    name: "trigger",
    summary: "Trigger a DAG run",
    args: ["dag_id"],
    options: [
      { name: "conf", short: "c", type: "string", value: "JSON", description: 'run parameters as a JSON object, e.g. \'{"vm_name": "web01"}\'' },
      { name: "run-id", short: "r", type: "string", value: "RUN_ID", description: "id of the run (default manual__<logical date>)" },
      { name: "logical-date", short: "l", type: "string", value: "DATE", description: "logical date, ISO 8601 with timezone (default now)" },
      { name: "exec-date", short: "e", type: "string", value: "DATE", description: "same as --logical-date (older name)" },
    ],
    async run(ctx, { positionals, values, format }) {
      const conf = parseConf(values.conf);
      const logicalDate = (values["logical-date"] ?? values["exec-date"]) as string | undefined;
      const run = await ctx.api({ notify: true }).triggerDagRun(positionals[0]!, { conf, runId: values["run-id"] as string | undefined, logicalDate });
      ctx.io.stdout(renderRows([run], TRIGGER_COLUMNS, format));
      return 0;
    },
  },
  {
    group: "dags",
    name: "list-runs",
    summary: "List the runs of a DAG, newest first",
    args: [],
    options: [
      { name: "dag-id", short: "d", type: "string", value: "DAG_ID", description: "the DAG (required)" },
      { name: "state", type: "string", value: "STATE", description: "only runs in this state (queued, running, success, failed)" },
      { name: "limit", type: "string", value: "N", description: "at most N runs" },
    ],
    async run(ctx, { values, format }) {
      const dagId = values["dag-id"];
      if (typeof dagId !== "string" || !dagId) throw new UsageError("-d/--dag-id is required");
      const limit = positiveInt(values.limit, "--limit");
      const api = ctx.api();
      const runs: ApiDagRun[] = [];
      for (let offset = 0; limit === undefined || runs.length < limit;) {
        const page = await api.listDagRuns({
          dag_id: dagId,
          state: typeof values.state === "string" ? [values.state] : undefined,
          order_by: "-execution_date",
          limit: Math.min(100, (limit ?? Infinity) - runs.length),
          offset,
        });
        runs.push(...page.dag_runs);
        offset += page.dag_runs.length;
        if (!page.dag_runs.length || offset >= page.total_entries) break;
      }
      const rows = runs.map((r) => ({
        dag_id: r.dag_id,
        run_id: r.dag_run_id,
        state: r.state,
        execution_date: r.execution_date,
        start_date: r.start_date ?? "",
        end_date: r.end_date ?? "",
      }));
      ctx.io.stdout(renderRows(rows, RUN_COLUMNS, format));
      return 0;
    },
  },
  {
    group: "dags",
    name: "list-import-errors",
    summary: "List DAG files that failed to load (exit code 1 when there are any)",
    args: [],
    options: [],
    async run(ctx, { format }) {
      const api = ctx.api();
      const import_errors = [];
      for (let offset = 0; ;) {
        const page = await api.listImportErrors({ limit: 100, offset });
        import_errors.push(...page.import_errors);
        offset += page.import_errors.length;
        if (!page.import_errors.length || offset >= page.total_entries) break;
      }
      ctx.io.stdout(
        renderRows(
          import_errors.map((e) => ({ filepath: e.filename, error: e.stack_trace })),
          ["filepath", "error"],
          format,
        ),
      );
      return import_errors.length ? 1 : 0;
    },
  },
  {
    group: "dags",
    name: "reserialize",
    summary: "Rescan the DAG folder now (new, changed and broken files)",
    args: [],
    options: [],
    async run(ctx) {
      const r = await ctx.api({ notify: true }).reserialize();
      const total = r.added.length + r.updated.length + r.unchanged.length;
      ctx.io.stdout(
        `Reserialized ${ctx.config.dagsDir}: ${total} DAG(s) (${r.added.length} added, ${r.updated.length} updated, ${r.deactivated.length} deactivated), ${r.errors.length} import error(s)\n`,
      );
      return 0;
    },
  },
  dagsShowCommand,
];
