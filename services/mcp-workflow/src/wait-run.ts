import { setTimeout as sleep } from "node:timers/promises";
import type { ApiDagRun, EngineApi } from "@svc/engine";
import type { ToolContext } from "@svc/mcp";
import { childProgress, describeChild } from "./child-progress";
import { FINISHED_TASK_STATES, taskSummary, type TaskSummary } from "./shapes";

/** Pause between the last progress notification and the answer. */
const PROGRESS_SETTLE_MS = 50;

export interface WaitOutcome {
  run: ApiDagRun;
  tasks: TaskSummary[];
  timed_out: boolean;
}

/**
 * Watch a run until it finishes or the timeout passes. Each task that finishes is reported in a
 * progress notification (when the client asked for progress), and so is each task that finishes
 * in a run one of its tasks triggered and waits for (a lab's product DAGs): progress then counts
 * the parent's finished tasks plus a fraction below one for its children's.
 */
export async function waitForRun(api: EngineApi, dagId: string, runId: string, o: { timeoutMs: number; pollMs: number; ctx: ToolContext }): Promise<WaitOutcome> {
  const deadline = Date.now() + o.timeoutMs;
  const reported = new Set<string>();
  const childDone = new Map<string, number>();
  let last = 0;
  for (;;) {
    // The run first, then its tasks: a run read as finished has every task finished in the later read,
    // so each finished task is reported before the answer.
    const run = await api.getDagRun(dagId, runId);
    const tis = await api.listTaskInstances(dagId, runId, { limit: 10_000 });
    const tasks = tis.task_instances.map(taskSummary);
    const done = tasks.filter((t) => t.state !== null && FINISHED_TASK_STATES.has(t.state));
    const fresh = done.filter((t) => !reported.has(t.task_id));
    // One notification per finished task, in the order they are seen.
    for (const t of fresh) {
      reported.add(t.task_id);
      last = reported.size;
      await o.ctx.progress(last, tasks.length, `${t.task_id} ${t.state}`);
    }
    const children = await childProgress(api, tis.task_instances);
    for (const c of children) {
      const key = `${c.dag_id}\u0000${c.run_id}`;
      if (childDone.get(key) === c.done) continue;
      childDone.set(key, c.done);
      // Each child's share of its tasks done, the shares together below one: a value above the
      // last sent while this many parent tasks are done, below the next finished parent task's.
      const value = reported.size + children.reduce((sum, x) => sum + (x.total ? (0.99 * x.done) / x.total : 0), 0) / children.length;
      if (c.done === 0 || value <= last) continue;
      last = value;
      await o.ctx.progress(value, tasks.length, describeChild(c));
    }
    if (run.state === "success" || run.state === "failed") {
      // Clients dispatch notifications a tick later than responses: a notification read in the same
      // chunk as the answer can find its progress handler gone. A short pause keeps them apart.
      if (fresh.length) await sleep(PROGRESS_SETTLE_MS);
      return { run, tasks, timed_out: false };
    }
    if (Date.now() >= deadline || o.ctx.signal.aborted) return { run, tasks, timed_out: true };
    await sleep(Math.min(o.pollMs, Math.max(0, deadline - Date.now())));
  }
}
