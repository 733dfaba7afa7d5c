import type { TaskDefinition, TriggerRule } from "@svc/dags";
import type { TaskState } from "@svc/db";
import { decideRun, type TiView } from "./decide";
import { canRetry, retryDelayMs } from "./retry";

function task(task_id: string, depends_on: string[] = [], trigger_rule: TriggerRule = "all_success", extra: Partial<TaskDefinition> = {}): TaskDefinition {
  return {
    task_id,
    operator: "noop",
    args: {},
    depends_on,
    trigger_rule,
    when: null,
    retries: 0,
    retry_delay_ms: 1000,
    retry_exponential_backoff: false,
    max_retry_delay_ms: 60000,
    execution_timeout_ms: null,
    doc: null,
    ...extra,
  };
}
const ti = (task_id: string, state: TaskState | null, try_number = 0, next_retry_at: Date | null = null): TiView => ({ task_id, state, try_number, next_retry_at });
const now = new Date("2026-01-01T00:00:00Z");
const always = () => true;

const diamond = { tasks: [task("a"), task("b", ["a"]), task("c", ["a"]), task("d", ["b", "c"])] };

describe("decideRun", () => {
  test("a due up_for_reschedule try is queued again at the same try number; a later one sets the wake-up and keeps the run running", () => {
    const dag = { tasks: [task("wait"), task("after", ["wait"])] };
    const due = decideRun(dag, [ti("wait", "up_for_reschedule", 2, new Date(now.getTime() - 1)), ti("after", null)], now, always);
    expect(due.queue).toEqual([{ task_id: "wait", try_number: 2, reschedule: true }]);
    expect(due.runState).toBe("running");
    const later = new Date(now.getTime() + 5000);
    const notYet = decideRun(dag, [ti("wait", "up_for_reschedule", 2, later), ti("after", null)], now, always);
    expect([notYet.queue, notYet.wakeAt, notYet.runState]).toEqual([[], later, "running"]);
  });

  test("a fresh diamond queues only its root with try 1", () => {
    const d = decideRun(diamond, [ti("a", null), ti("b", null), ti("c", null), ti("d", null)], now, always);
    expect(d.queue).toEqual([{ task_id: "a", try_number: 1 }]);
    expect(d.runState).toBe("running");
  });

  test("diamond middle tasks run in parallel once the root succeeded, the join waits for both", () => {
    const d = decideRun(diamond, [ti("a", "success", 1), ti("b", null), ti("c", null), ti("d", null)], now, always);
    expect(d.queue.map((q) => q.task_id).sort()).toEqual(["b", "c"]);
    const d2 = decideRun(diamond, [ti("a", "success", 1), ti("b", "success", 1), ti("c", "running", 1), ti("d", null)], now, always);
    expect(d2.queue).toEqual([]);
  });

  test("all tasks finished successfully gives a successful run", () => {
    const d = decideRun(
      diamond,
      ["a", "b", "c", "d"].map((t) => ti(t, "success", 1)),
      now,
      always,
    );
    expect(d.runState).toBe("success");
  });

  test("a when-false branch is skipped and the join runs under none_failed_min_one_success", () => {
    const dag = {
      tasks: [
        task("create", [], "all_success", { when: "x" }),
        task("delete", [], "all_success", { when: "y" }),
        task("report", ["create", "delete"], "none_failed_min_one_success"),
      ],
    };
    const cond = (t: TaskDefinition) => t.task_id !== "delete";
    const d = decideRun(dag, [ti("create", null), ti("delete", null), ti("report", null)], now, cond);
    expect(d.queue).toEqual([{ task_id: "create", try_number: 1 }]);
    expect(d.skip).toEqual(["delete"]);
    const d2 = decideRun(dag, [ti("create", "success", 1), ti("delete", "skipped"), ti("report", null)], now, cond);
    expect(d2.queue).toEqual([{ task_id: "report", try_number: 1 }]);
  });

  test("skips propagate through all_success chains to a fixpoint in one evaluation", () => {
    const dag = { tasks: [task("a", [], "all_success", { when: "no" }), task("b", ["a"]), task("c", ["b"])] };
    const d = decideRun(dag, [ti("a", null), ti("b", null), ti("c", null)], now, () => false);
    expect(d.skip).toEqual(["a", "b", "c"]);
    expect(d.runState).toBe("success");
  });

  test("upstream_failed propagates downstream and fails the run", () => {
    const d = decideRun(diamond, [ti("a", "failed", 1), ti("b", null), ti("c", null), ti("d", null)], now, always);
    expect(d.upstreamFailed.sort()).toEqual(["b", "c", "d"]);
    expect(d.runState).toBe("failed");
  });

  test("a one_failed cleanup task runs when a step failed", () => {
    const dag = { tasks: [task("create"), task("configure", ["create"]), task("cleanup", ["create", "configure"], "one_failed")] };
    const d = decideRun(dag, [ti("create", "success", 1), ti("configure", "failed", 1), ti("cleanup", null)], now, always);
    expect(d.queue).toEqual([{ task_id: "cleanup", try_number: 1 }]);
  });

  test("a one_failed cleanup task is skipped when everything succeeded, and the run succeeds", () => {
    const dag = { tasks: [task("create"), task("cleanup", ["create"], "one_failed")] };
    const d = decideRun(dag, [ti("create", "success", 1), ti("cleanup", null)], now, always);
    expect(d.skip).toEqual(["cleanup"]);
    expect(d.runState).toBe("success");
  });

  test("up_for_retry whose time has come is queued with the next try number", () => {
    const d = decideRun({ tasks: [task("a")] }, [ti("a", "up_for_retry", 1, new Date(now.getTime() - 1))], now, always);
    expect(d.queue).toEqual([{ task_id: "a", try_number: 2 }]);
    expect(d.wakeAt).toBeNull();
  });

  test("up_for_retry in the future is not queued and sets the wake-up time", () => {
    const later = new Date(now.getTime() + 5000);
    const d = decideRun({ tasks: [task("a")] }, [ti("a", "up_for_retry", 1, later)], now, always);
    expect(d.queue).toEqual([]);
    expect(d.wakeAt).toEqual(later);
    expect(d.runState).toBe("running");
  });

  test("queued, running and retrying tasks keep the run running", () => {
    for (const s of ["queued", "running", "up_for_retry", "scheduled"] as const) {
      expect(decideRun({ tasks: [task("a")] }, [ti("a", s, 1, new Date(now.getTime() + 1000))], now, always).runState).toBe("running");
    }
  });

  test("run state follows the leaves: a failed task whose downstream leaf succeeded under all_done leaves the run successful", () => {
    const dag = { tasks: [task("a"), task("b", ["a"], "all_done")] };
    expect(decideRun(dag, [ti("a", "failed", 1), ti("b", "success", 1)], now, always).runState).toBe("success");
  });
});

describe("retries", () => {
  test("retries: 2 allows tries 1 and 2 to be retried, not try 3", () => {
    expect([1, 2, 3].map((t) => canRetry(t, 2))).toEqual([true, true, false]);
  });
  test("fixed and exponential backoff with a cap", () => {
    const t = { retry_delay_ms: 1000, retry_exponential_backoff: false, max_retry_delay_ms: 5000 };
    expect(retryDelayMs(t, 3)).toBe(1000);
    const e = { ...t, retry_exponential_backoff: true };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(e, n))).toEqual([1000, 2000, 4000, 5000]);
  });
});
