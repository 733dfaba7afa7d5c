import type { TaskDefinition } from "@svc/dags";

type TaskDeps = Pick<TaskDefinition, "task_id" | "depends_on">;

/** Every task reachable from `start` following `next` (not including the start tasks themselves unless reached). */
function reach(start: Iterable<string>, next: (id: string) => string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...start];
  while (stack.length) {
    for (const n of next(stack.pop()!)) {
      if (!seen.has(n)) {
        seen.add(n);
        stack.push(n);
      }
    }
  }
  return seen;
}

/** `ids` plus, on request, all their transitive upstream and/or downstream tasks. */
export function expandTaskIds(tasks: TaskDeps[], ids: string[], opts: { upstream?: boolean; downstream?: boolean }): Set<string> {
  const byId = new Map(tasks.map((t) => [t.task_id, t]));
  const children = new Map<string, string[]>();
  for (const t of tasks) for (const d of t.depends_on) children.set(d, [...(children.get(d) ?? []), t.task_id]);
  const out = new Set(ids);
  if (opts.upstream) for (const id of reach(ids, (i) => byId.get(i)?.depends_on ?? [])) out.add(id);
  if (opts.downstream) for (const id of reach(ids, (i) => children.get(i) ?? [])) out.add(id);
  return out;
}

/** Edges `[upstream, downstream]` of a DAG, sorted. */
export function dagEdges(tasks: TaskDeps[]): [string, string][] {
  return tasks.flatMap((t) => t.depends_on.map((d) => [d, t.task_id] as [string, string])).sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
}

/** Task ids in a topological order (upstream first; ties by definition order). */
export function topoOrder(tasks: TaskDeps[]): string[] {
  const indeg = new Map(tasks.map((t) => [t.task_id, t.depends_on.length]));
  const out: string[] = [];
  const done = new Set<string>();
  while (out.length < tasks.length) {
    const ready = tasks.find((t) => !done.has(t.task_id) && (indeg.get(t.task_id) ?? 0) === 0);
    // A cycle cannot pass the validator; stop rather than loop if one slips through.
    if (!ready) return [...out, ...tasks.filter((t) => !done.has(t.task_id)).map((t) => t.task_id)];
    done.add(ready.task_id);
    out.push(ready.task_id);
    for (const t of tasks) if (t.depends_on.includes(ready.task_id)) indeg.set(t.task_id, (indeg.get(t.task_id) ?? 1) - 1);
  }
  return out;
}
