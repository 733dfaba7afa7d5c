import { checkParams } from "./check-params";
import { checkDurations, checkOperators, checkTaskGraph } from "./check-tasks";
import { checkTemplates } from "./check-templates";
import { dagHash } from "./hash";
import { sortProblems } from "./problems";
import type { ProblemSink, RawDag } from "./raw-dag";
import { scheduleToCron } from "./schedule";
import { checkDagSchema } from "./schema-check";
import type { DagDefinition, DagFileProblem, DagFileResult, OperatorCatalog } from "./types";
import { MAX_FILE_BYTES, loadYaml, type YamlSource } from "./yaml-source";

/** What the parser needs from its caller. */
export interface ParseDagOptions {
  /** Operators tasks may use, and their args checks. */
  catalog: OperatorCatalog;
  /** Platform settings for `{{ settings.<key> }}` in param defaults (domain, cluster_name, admin_user, ...). */
  settings?: Record<string, string>;
}

/** Deepest YAML nesting accepted; deeper data is an import error rather than a stack overflow later. */
const MAX_NESTING = 64;

/** Parse and validate one DAG file's text. Never throws for bad content: problems come back in the result. */
export function parseDagFile(fileloc: string, text: string, opts: ParseDagOptions): DagFileResult {
  const fail = (problems: DagFileProblem[]): DagFileResult => ({ ok: false, fileloc, problems: sortProblems(problems) });
  if (Buffer.byteLength(text, "utf8") > MAX_FILE_BYTES) return fail([{ message: `file is larger than ${MAX_FILE_BYTES} bytes` }]);
  const src = loadYaml(text);
  if (src.problems.length) return fail(src.problems);
  if (src.data === null || src.data === undefined) return fail([{ message: "file is empty: expected a mapping with dag_id and tasks", line: 1 }]);
  if (nestingDepth(src.data) > MAX_NESTING) return fail([{ message: `data nested deeper than ${MAX_NESTING} levels` }]);

  const problems: DagFileProblem[] = [];
  const sink = createSink(src, problems);
  if (!checkDagSchema(src.data, sink)) return fail(problems);
  const raw = src.data as RawDag;

  try {
    scheduleToCron(raw.schedule);
  } catch (e) {
    sink.at(["schedule"], `schedule: ${(e as Error).message}`);
  }
  const upstream = checkTaskGraph(raw, sink);
  checkOperators(raw, opts.catalog, sink);
  const durations = checkDurations(raw, sink);
  const { params, required } = checkParams(raw, opts.settings, sink);
  checkTemplates(raw, upstream, sink);
  if (problems.length) return fail(problems);

  const dag: DagDefinition = {
    dag_id: raw.dag_id,
    description: raw.description,
    tags: raw.tags,
    owners: raw.owners,
    schedule: raw.schedule === null ? null : raw.schedule.trim(),
    max_active_runs: raw.max_active_runs,
    ...(raw.triggered_runs_while_paused ? { triggered_runs_while_paused: true as const } : {}),
    params,
    required_params: required,
    examples: raw.examples,
    doc_md: raw.doc_md,
    tasks: raw.tasks.map((t, i) => ({
      task_id: t.task_id,
      operator: t.operator,
      args: t.args,
      depends_on: t.depends_on,
      trigger_rule: t.trigger_rule,
      when: t.when === null || t.when.trim() === "" ? null : t.when,
      retries: t.retries,
      ...durations[i]!,
      retry_exponential_backoff: t.retry_exponential_backoff,
      // Only when given, so that the definitions (and hashes) of DAGs without it do not change.
      ...(t.queue !== undefined ? { queue: t.queue } : {}),
      doc: t.doc,
    })),
  };
  return { ok: true, fileloc, dag, hash: dagHash(dag) };
}

function createSink(src: YamlSource, problems: DagFileProblem[]): ProblemSink {
  const push = (message: string, line: number | undefined) => problems.push(line === undefined ? { message } : { message, line });
  return {
    at: (path, message) => push(message, src.lineOf(path)),
    atKey: (path, key, message) => push(message, src.keyLineOf(path, key)),
  };
}

/** Nesting depth of parsed YAML data, computed without recursion. */
function nestingDepth(data: unknown): number {
  let max = 0;
  const todo: [unknown, number][] = [[data, 0]];
  while (todo.length) {
    const [v, d] = todo.pop()!;
    if (d > max) max = d;
    if (d > MAX_NESTING) break;
    if (v !== null && typeof v === "object") for (const x of Object.values(v)) todo.push([x, d + 1]);
  }
  return max;
}
