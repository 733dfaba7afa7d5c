import { compileTemplate, isTemplate } from "./compile";
import { TemplateError } from "./errors";
import { evaluate, need } from "./evaluate";
import { isPlainObject, toText, truthy } from "./values";

/**
 * What templates can see at run time. Task outputs are under `ti.<task_id>.output`; callers may add
 * other top-level names (the DAG loader passes `settings` for param defaults).
 */
export interface TemplateContext {
  params: Record<string, unknown>;
  run_id?: string;
  dag_id?: string;
  /** ISO-8601 timestamp. */
  logical_date?: string;
  /** logical date as YYYY-MM-DD. */
  ds?: string;
  /** The run's note (for runs an intent started: the flow and its sentence); "" when none. */
  run_note?: string;
  ti?: Record<string, { output: unknown }>;
  [name: string]: unknown;
}

/** Options for createTemplateContext. */
export interface TemplateContextInput {
  dagId: string;
  runId: string;
  logicalDate: Date;
  params: Record<string, unknown>;
  /** Output of each finished upstream task, by task_id. */
  outputs?: Record<string, unknown>;
  /** The run's note, read only for tasks whose args use `run_note`. */
  runNote?: string | null;
}

/** Build the run-time context for a task's templates. */
export function createTemplateContext(input: TemplateContextInput): TemplateContext {
  const ti = Object.create(null) as Record<string, { output: unknown }>;
  for (const [taskId, output] of Object.entries(input.outputs ?? {})) setOwn(ti, taskId, { output: output ?? {} });
  const iso = input.logicalDate.toISOString();
  return { params: input.params, run_id: input.runId, dag_id: input.dagId, logical_date: iso, ds: iso.slice(0, 10), run_note: input.runNote ?? "", ti };
}

/**
 * Render one string. Exactly one `{{ expr }}` yields the raw value (numbers, lists and objects stay
 * typed); text mixed with expressions yields a string. Strings without `{{` come back unchanged.
 */
export function renderTemplate(text: string, ctx: TemplateContext | Record<string, unknown>): unknown {
  if (!isTemplate(text)) return text;
  const tpl = compileTemplate(text);
  const data = ctx as Record<string, unknown>;
  if (tpl.single) return need(evaluate(tpl.single, data));
  return tpl.parts.map((p) => (typeof p === "string" ? p : toText(need(evaluate(p.expr, data))))).join("");
}

/** Deepest args structure rendered; YAML cannot produce more, hostile callers get an error. */
const MAX_ARGS_DEPTH = 64;

/** Render every string inside args (nested objects and lists); keys are never templated. Errors name the arg path. */
export function renderArgs(args: Record<string, unknown>, ctx: TemplateContext | Record<string, unknown>): Record<string, unknown> {
  return renderValue(args, ctx, "args", 0) as Record<string, unknown>;
}

function renderValue(v: unknown, ctx: TemplateContext | Record<string, unknown>, path: string, depth: number): unknown {
  if (depth > MAX_ARGS_DEPTH) throw new TemplateError(`${path}: nested deeper than ${MAX_ARGS_DEPTH} levels`);
  if (typeof v === "string") {
    try {
      return renderTemplate(v, ctx);
    } catch (e) {
      if (e instanceof TemplateError) throw new TemplateError(`${path}: ${e.message}`, v);
      throw e;
    }
  }
  if (Array.isArray(v)) return v.map((x, i) => renderValue(x, ctx, `${path}[${i}]`, depth + 1));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, renderValue(x, ctx, `${path}.${k}`, depth + 1));
    return out;
  }
  return v;
}

/**
 * Evaluate a task's `when`: `{{ expr }}` or a bare expression. Null or blank means "always".
 * Truthiness follows Python / Jinja.
 */
export function evaluateCondition(when: string | null | undefined, ctx: TemplateContext | Record<string, unknown>): boolean {
  if (when === null || when === undefined || when.trim() === "") return true;
  const text = conditionTemplate(when);
  const tpl = compileTemplate(text);
  if (!tpl.single) throw new TemplateError("a condition must be a single expression, e.g. \"{{ params.action == 'create' }}\"", when);
  return truthy(need(evaluate(tpl.single, ctx)));
}

/** A bare `when` expression is wrapped in braces so both spellings parse the same way. */
export function conditionTemplate(when: string): string {
  return isTemplate(when) ? when : `{{ ${when} }}`;
}

/** Define an own property even for keys like `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
