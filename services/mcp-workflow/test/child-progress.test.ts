import type { Client } from "@modelcontextprotocol/client";
import { connectStdio, progressOnTheWire, startStack, type Stack } from "./helpers";

// A parent whose first task triggers a three-step child DAG and waits for it (as a lab waits for
// its products), then a last task of its own.
const CHILD = `dag_id: slow_chain
description: Three one-second steps
tasks:
  - {task_id: one, operator: sleep, args: {seconds: 1}}
  - {task_id: two, operator: sleep, args: {seconds: 1}, depends_on: [one]}
  - {task_id: three, operator: sleep, args: {seconds: 1}, depends_on: [two]}
`;
const PARENT = `dag_id: parent_of_chain
description: Waits for slow_chain, then ends
tasks:
  - {task_id: product, operator: trigger_dag_run, args: {trigger_dag_id: slow_chain, poke_interval: 1}}
  - {task_id: report, operator: noop, depends_on: [product]}
`;

type ToolResult = { isError?: boolean; structuredContent?: { run?: { state?: string }; tasks?: { task_id: string; state: string | null }[] } };

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack("mcpchild", { "slow_chain.yaml": CHILD, "parent_of_chain.yaml": PARENT });
  client = await connectStdio(stack.env);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

test("trigger_dag_and_wait on a parent reports its child run's tasks as they finish, as rising fractions of the parent's first task, then the parent's own tasks", async () => {
  const { result, progress } = await progressOnTheWire(client, () =>
    client.callTool({ name: "trigger_dag_and_wait", arguments: { dag_id: "parent_of_chain", timeout_seconds: 120 } }, { onprogress: () => undefined }),
  );
  const r = result as ToolResult;
  expect(r.isError).toBeFalsy();
  expect(r.structuredContent?.run?.state).toBe("success");

  const childNotes = progress.filter((p) => /^product: slow_chain \d\/3 tasks done \((one|two|three) success\)$/.test(p.message ?? ""));
  expect(childNotes.length).toBeGreaterThanOrEqual(1);
  // While the parent's first task waits, its child's steps count as a fraction of it.
  for (const p of childNotes) expect(p.progress > 0 && p.progress < 1).toBe(true);
  expect(progress.slice(-2).map((p) => [p.progress, p.message])).toEqual([
    [1, "product success"],
    [2, "report success"],
  ]);
  const values = progress.map((p) => p.progress);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  expect(new Set(values).size).toBe(values.length);
  expect(progress.every((p) => p.total === 2)).toBe(true);
});
