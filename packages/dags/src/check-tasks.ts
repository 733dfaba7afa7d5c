import { parseDuration } from "./duration";
import { findCycle, upstreamClosure } from "./graph";
import type { ProblemSink, RawDag } from "./raw-dag";
import { didYouMean } from "./suggest";
import type { OperatorCatalog } from "./types";

/** Duplicate task ids, unknown or cyclic dependencies; returns every task's (indirect) upstream set. */
export function checkTaskGraph(dag: RawDag, sink: ProblemSink): Map<string, Set<string>> {
  const firstIndex = new Map<string, number>();
  dag.tasks.forEach((t, i) => {
    const first = firstIndex.get(t.task_id);
    if (first === undefined) firstIndex.set(t.task_id, i);
    else sink.at(["tasks", i, "task_id"], `tasks[${i}].task_id: duplicate task_id '${t.task_id}' (also tasks[${first}])`);
  });
  const deps = new Map<string, string[]>();
  dag.tasks.forEach((t, i) => {
    if (firstIndex.get(t.task_id) !== i) return;
    t.depends_on.forEach((d, j) => {
      if (!firstIndex.has(d)) sink.at(["tasks", i, "depends_on", j], `task ${t.task_id}: depends_on: unknown task '${d}'${didYouMean(d, firstIndex.keys())}`);
    });
    deps.set(
      t.task_id,
      t.depends_on.filter((d) => firstIndex.has(d)),
    );
  });
  const cycle = findCycle(deps);
  if (cycle) {
    const first = firstIndex.get(cycle[0]!)!;
    sink.at(["tasks", first, "depends_on"], `cycle in task dependencies: ${cycle.join(" → ")}`);
  }
  return upstreamClosure(deps);
}

/** Unknown operators and literal args the operator rejects. */
export function checkOperators(dag: RawDag, catalog: OperatorCatalog, sink: ProblemSink): void {
  dag.tasks.forEach((t, i) => {
    if (!catalog.has(t.operator)) {
      const hint = catalog.names ? didYouMean(t.operator, catalog.names()) : "";
      sink.at(["tasks", i, "operator"], `task ${t.task_id}: unknown operator '${t.operator}'${hint}`);
      return;
    }
    for (const msg of catalog.checkArgs(t.operator, t.args)) sink.at(["tasks", i, "args"], `task ${t.task_id}: args: ${msg}`);
  });
}

/** Normalised durations of one task, in milliseconds. */
export interface TaskDurations {
  retry_delay_ms: number;
  max_retry_delay_ms: number;
  execution_timeout_ms: number | null;
}

/** Parse each task's durations; out-of-range values become problems (and 0 in the result). */
export function checkDurations(dag: RawDag, sink: ProblemSink): TaskDurations[] {
  return dag.tasks.map((t, i) => {
    const parse = (field: "retry_delay" | "max_retry_delay" | "execution_timeout", v: number | string): number => {
      try {
        const ms = parseDuration(v);
        if (ms === 0 && field === "execution_timeout") throw new Error("must be greater than 0 (use null for no timeout)");
        return ms;
      } catch (e) {
        sink.at(["tasks", i, field], `task ${t.task_id}: ${field}: ${(e as Error).message}`);
        return 0;
      }
    };
    return {
      retry_delay_ms: parse("retry_delay", t.retry_delay),
      max_retry_delay_ms: parse("max_retry_delay", t.max_retry_delay),
      execution_timeout_ms: t.execution_timeout === null ? null : parse("execution_timeout", t.execution_timeout),
    };
  });
}
