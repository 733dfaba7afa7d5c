import { createTemplateContext, evaluateCondition, renderTemplate, type TemplateContext } from "./template/render";
import type { DagDefinition } from "./types";

/** A task of a run that would create a VM, with its args as the run would render them. */
export interface VmCreatingTask {
  task_id: string;
  /** Rendered with the run's params; undefined where an arg reads what only the run knows (a task's output). */
  args: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** One arg as the run would render it; undefined where it reads what only the run knows. */
function renderSafely(v: unknown, ctx: TemplateContext): unknown {
  try {
    if (typeof v === "string") return renderTemplate(v, ctx);
    if (Array.isArray(v)) return v.map((x) => renderSafely(x, ctx));
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renderSafely(x, ctx)]));
    return v;
  } catch {
    return undefined;
  }
}

/** Whether the task's `when` holds; a condition that cannot be judged before the run counts as holding. */
function runs(when: string | null, ctx: TemplateContext): boolean {
  try {
    return evaluateCondition(when, ctx);
  } catch {
    return true;
  }
}

/** The args a task creates a VM with: a vm_create's own, or a host_check placement step's `place` (its host arg still pins). */
function creatingArgs(t: DagDefinition["tasks"][number]): Record<string, unknown> | undefined {
  if (t.operator === "vm_create") return t.args;
  if (t.operator === "host_check" && isRecord(t.args.place)) return { ...t.args.place, host: t.args.host };
  return undefined;
}

/**
 * The tasks of a run with these params that would create (or place) a VM, in DAG order: vm_create
 * tasks and placement steps (host_check with `place`) whose `when` holds, args rendered. What the
 * plan previews and what the trigger checks a cloud host's approval on.
 */
export function vmCreatingTasks(dag: Pick<DagDefinition, "dag_id" | "tasks">, params: Record<string, unknown>): VmCreatingTask[] {
  const tasks = dag.tasks.flatMap((t) => {
    const args = creatingArgs(t);
    return args ? [{ t, args }] : [];
  });
  if (tasks.length === 0) return [];
  const ctx = createTemplateContext({ dagId: dag.dag_id, runId: "manual__plan", logicalDate: new Date(0), params });
  return tasks
    .filter(({ t }) => runs(t.when, ctx))
    .map(({ t, args }) => ({ task_id: t.task_id, args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, renderSafely(v, ctx)])) }));
}
