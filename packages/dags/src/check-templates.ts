import { formatFieldPath } from "./problems";
import type { ProblemSink, RawDag } from "./raw-dag";
import { formatPath } from "./template/ast";
import { compileTemplate, isTemplate } from "./template/compile";
import { conditionTemplate } from "./template/render";
import { templateReferences, type TemplateReference } from "./template/references";
import { didYouMean } from "./suggest";

/** Run-time names every task template may read (besides params and ti). */
const RUN_VARIABLES = ["run_id", "dag_id", "logical_date", "ds"];
/** Read when a task runs, not when the scheduler decides: task args only, never `when`. */
const ARGS_ONLY_VARIABLES = ["run_note"];
const ROOTS_HELP = "params, run_id, dag_id, logical_date, ds, run_note (args only), ti.<upstream task>.output";

interface Scope {
  taskId: string;
  params: Set<string>;
  /** Tasks whose output this task's templates may read: its direct and indirect upstream tasks. */
  upstream: Set<string>;
  /** Checking a `when` condition rather than an arg. */
  inWhen?: boolean;
}

/**
 * Syntax and references of every templated arg and every `when`. Both may read the output of
 * upstream tasks: the scheduler evaluates `when` only once the trigger rule lets the task run.
 */
export function checkTemplates(dag: RawDag, upstream: Map<string, Set<string>>, sink: ProblemSink): void {
  const params = new Set(Object.keys(dag.params));
  dag.tasks.forEach((t, i) => {
    const scope: Scope = { taskId: t.task_id, params, upstream: upstream.get(t.task_id) ?? new Set() };
    walkStrings(t.args, ["tasks", i, "args"], (text, path) => {
      for (const msg of checkOne(text, scope)) sink.at(path, `task ${t.task_id}: ${formatFieldPath(path.slice(2))}: ${msg}`);
    });
    if (t.when !== null && t.when.trim() !== "") {
      const text = conditionTemplate(t.when);
      const problems = checkOne(text, { ...scope, inWhen: true });
      if (problems.length === 0 && !compileTemplate(text).single) problems.push("must be a single expression, e.g. \"{{ params.action == 'create' }}\"");
      for (const msg of problems) sink.at(["tasks", i, "when"], `task ${t.task_id}: when: ${msg}`);
    }
  });
}

function checkOne(text: string, scope: Scope): string[] {
  let refs: TemplateReference[];
  try {
    refs = templateReferences(text);
  } catch (e) {
    return [(e as Error).message];
  }
  const out: string[] = [];
  for (const ref of refs) {
    const msg = checkReference(ref, scope);
    if (msg && !out.includes(msg)) out.push(msg);
  }
  return out;
}

function checkReference({ path, dynamic }: TemplateReference, scope: Scope): string | undefined {
  const [root, second, third] = path;
  if (root === "params") {
    if (second === undefined) return undefined;
    if (typeof second !== "string" || !scope.params.has(second)) {
      const known = [...scope.params].sort();
      return `unknown param '${String(second)}'${didYouMean(String(second), known)} (params: ${known.join(", ") || "none declared"})`;
    }
    return undefined;
  }
  if (root === "ti") {
    if (second === undefined || (path.length === 1 && dynamic)) return "'ti' needs a literal task id: ti.<task_id>.output";
    if (typeof second !== "string" || !scope.upstream.has(second)) {
      return `'${formatPath(path)}': task '${String(second)}' is not upstream of '${scope.taskId}' (add it to depends_on)`;
    }
    if (third !== "output") return `'${formatPath(path)}': use ti.${second}.output`;
    return undefined;
  }
  if (typeof root === "string" && ARGS_ONLY_VARIABLES.includes(root) && scope.inWhen) {
    return `${root} is readable in task args only, not in when`;
  }
  if (typeof root === "string" && (RUN_VARIABLES.includes(root) || ARGS_ONLY_VARIABLES.includes(root))) {
    return path.length > 1 ? `'${formatPath(path)}': ${root} is a string and has no fields` : undefined;
  }
  return `unknown variable '${String(root)}'${didYouMean(String(root), [...RUN_VARIABLES, ...ARGS_ONLY_VARIABLES, "params", "ti"])} (templates can use ${ROOTS_HELP})`;
}

/** Call `visit` for every templated string inside a value, with its YAML path. */
export function walkStrings(value: unknown, path: (string | number)[], visit: (text: string, path: (string | number)[]) => void): void {
  if (typeof value === "string") {
    if (isTemplate(value)) visit(value, path);
  } else if (Array.isArray(value)) value.forEach((v, i) => walkStrings(v, [...path, i], visit));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) walkStrings(v, [...path, k], visit);
  }
}
