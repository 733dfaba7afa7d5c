import type { DagDefinition } from "@svc/dags";
import { taskFacts } from "./definition-cache";

const task = (task_id: string, depends_on: string[] = [], extra: Partial<DagDefinition["tasks"][number]> = {}) =>
  ({ task_id, operator: "noop", args: {}, depends_on, trigger_rule: "all_success", ...extra }) as DagDefinition["tasks"][number];

const dag = {
  tasks: [
    task("a"),
    task("b", ["a"]),
    task("c", ["a"], { trigger_rule: "none_failed" }),
    task("p"),
    task("q", ["p", "a"]),
    task("x"),
    task("y", ["x"]),
    task("z", ["x"], { when: "{{ params.go }}" }),
    task("r"),
    task("s", ["r"], { trigger_rule: "all_failed" }),
    task("u"),
    task("v", ["u", "r"], { trigger_rule: "one_success" }),
    task("w", ["u"], { trigger_rule: "always" }),
  ],
} as unknown as DagDefinition;
const facts = (id: string) => taskFacts(dag, id);

test("a task's hops are the downstream tasks that have it as their only upstream, wait for it, run on its success and have no condition", () => {
  expect(facts("a")?.hops).toEqual(["b", "c"]);
  expect(facts("x")?.hops).toEqual(["y"]); // z has a condition
  expect(facts("r")?.hops).toBeUndefined(); // s runs on failure
  expect(facts("u")?.hops).toBeUndefined(); // w does not wait for u, v has two upstream tasks
  expect(facts("b")?.hops).toBeUndefined(); // no downstream task
});

test("a task's success needs no evaluation only when every other downstream task waits for another upstream", () => {
  // q waits for p as well (all_success): a's success decides nothing but its hops.
  expect(facts("a")?.joins).toEqual([new Set(["p", "a"])]);
  expect(facts("p")?.joins).toEqual([new Set(["p", "a"])]);
  // z's condition, s's rule, v's one_success: the success alone may decide them.
  for (const id of ["x", "r", "u"]) expect(facts(id)?.joins).toBeUndefined();
  // A task with nothing downstream is a leaf, not a join's upstream.
  expect(facts("q")?.joins).toBeUndefined();
});
