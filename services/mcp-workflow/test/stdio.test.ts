import type { Client } from "@modelcontextprotocol/client";
import { connectStdio, progressOnTheWire, startStack, type Stack } from "./helpers";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolResult;
const textOf = (r: ToolResult) => r.content.map((b) => b.text ?? "").join("\n");

const WRITE_TOOLS = ["pause_dag", "unpause_dag", "trigger_dag", "trigger_dag_and_wait", "clear_task_instances", "create_vm", "delete_vm"];
const TOOL_COUNT = 21;

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack("mcpstdio");
  // A server configured as an op: every tool (what the default role offers: roles.test.ts).
  client = await connectStdio({ ...stack.env, SVC_MCP_WORKFLOW_ROLE: "op" });
});
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

const runsOf = (dagId: string) => stack.tdb.db.selectFrom("dag_run").select(["run_id", "state"]).where("dag_id", "=", dagId).execute();

test("every tool is listed with an output schema and annotations; reads say readOnlyHint true, writes false, clear and delete_vm are destructive", async () => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  expect(tools.length).toBe(TOOL_COUNT);
  for (const t of tools) {
    expect(t.outputSchema).toMatchObject({ type: "object" });
    expect(typeof t.annotations?.readOnlyHint).toBe("boolean");
    expect(t.annotations?.readOnlyHint).toBe(!WRITE_TOOLS.includes(t.name));
  }
  expect(byName.get("clear_task_instances")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  expect(byName.get("delete_vm")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(byName.get("trigger_dag")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  expect(byName.get("list_dags")?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
});

test("trigger_dag_and_wait runs the no-op DAG to success and reports each finished task as progress", async () => {
  const { result, progress } = await progressOnTheWire(client, () =>
    client.callTool({ name: "trigger_dag_and_wait", arguments: { dag_id: "noop_chain", timeout_seconds: 60 } }, { onprogress: () => undefined }),
  );
  const r = result as ToolResult;
  expect(r.isError).toBeFalsy();
  expect(r.structuredContent).toMatchObject({ run: { dag_id: "noop_chain", state: "success" }, timed_out: false, deduplicated: false });
  expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
  expect(progress.every((p) => p.total === 3)).toBe(true);
  expect(progress.map((p) => p.message)).toEqual(["first success", "second success", "third success"]);
  expect(textOf(r)).toMatch(/success/);
});

test("a conf whose vm_name is a path is a tool error naming vm_name, and no run is created", async () => {
  const r = await call(client, "trigger_dag", { dag_id: "vm_like", conf: { vm_name: "../../etc/passwd" } });
  expect(r.isError).toBe(true);
  expect(textOf(r)).toMatch(/conf\.vm_name/);
  expect(await runsOf("vm_like")).toEqual([]);
});

test("an input the schema rejects is a tool error naming the field, not a protocol error", async () => {
  const r = await call(client, "get_task_logs", { dag_id: "noop_chain", run_id: "x", task_id: "first", max_bytes: 10 });
  expect(r.isError).toBe(true);
  expect(textOf(r)).toMatch(/max_bytes/);
  const missing = await call(client, "get_dag_details", { dag_id: "no_such_dag" });
  expect(missing.isError).toBe(true);
  expect(textOf(missing)).toMatch(/no_such_dag/);
});

test("trigger_dag with an idempotency key returns the same run on retry and refuses the key with a different conf", async () => {
  const first = await call(client, "trigger_dag", { dag_id: "vm_like", conf: { vm_name: "web-1" }, idempotency_key: "req-42" });
  expect(first.isError).toBeFalsy();
  const again = await call(client, "trigger_dag", { dag_id: "vm_like", conf: { vm_name: "web-1" }, idempotency_key: "req-42" });
  expect(again.structuredContent).toMatchObject({ deduplicated: true, run: { run_id: (first.structuredContent as { run: { run_id: string } }).run.run_id } });
  const clash = await call(client, "trigger_dag", { dag_id: "vm_like", conf: { vm_name: "web-2" }, idempotency_key: "req-42" });
  expect(clash.isError).toBe(true);
  expect(textOf(clash)).toMatch(/idempotency_key.*conf\.vm_name/);
  expect(await runsOf("vm_like")).toHaveLength(1);
});

test("list_dags filters by tag, paused state and text, and honours the limit", async () => {
  const byTag = await call(client, "list_dags", { tag: "vm" });
  expect((byTag.structuredContent as { dags: { dag_id: string }[] }).dags.map((d) => d.dag_id)).toEqual(["vm_like"]);
  const byText = await call(client, "list_dags", { text: "NO-OP TASKS" });
  expect((byText.structuredContent as { dags: { dag_id: string }[] }).dags.map((d) => d.dag_id)).toEqual(["noop_chain"]);
  const paused = await call(client, "list_dags", { paused: true });
  expect(paused.structuredContent).toMatchObject({ dags: [], total: 0 });
  const limited = await call(client, "list_dags", { limit: 1 });
  expect(limited.structuredContent).toMatchObject({ total: 2, dags: [expect.any(Object)] });
});

test("get_task_logs bounds the answer by tail lines, filter and bytes", async () => {
  const run = await call(client, "trigger_dag_and_wait", { dag_id: "noop_chain", timeout_seconds: 60 });
  const runId = (run.structuredContent as { run: { run_id: string } }).run.run_id;
  const full = await call(client, "get_task_logs", { dag_id: "noop_chain", run_id: runId, task_id: "second" });
  const fullData = full.structuredContent as { content: string; lines_returned: number; try_number: number };
  expect(fullData.try_number).toBe(1);
  expect(fullData.lines_returned).toBeGreaterThan(0);
  const one = await call(client, "get_task_logs", { dag_id: "noop_chain", run_id: runId, task_id: "second", tail_lines: 1 });
  expect(one.structuredContent).toMatchObject({ lines_returned: 1 });
  const none = await call(client, "get_task_logs", { dag_id: "noop_chain", run_id: runId, task_id: "second", grep: "no line says this" });
  expect(none.structuredContent).toMatchObject({ lines_returned: 0, lines_matched: 0, content: "" });
  const small = await call(client, "get_task_logs", { dag_id: "noop_chain", run_id: runId, task_id: "second", max_bytes: 256 });
  expect(Buffer.byteLength((small.structuredContent as { content: string }).content)).toBeLessThanOrEqual(256);
});

test("diagnose_dag_run without a run id takes the latest run; explore_dag and get_system_health answer in one call", async () => {
  const latest = await stack.tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "noop_chain").orderBy("logical_date", "desc").executeTakeFirstOrThrow();
  const diag = await call(client, "diagnose_dag_run", { dag_id: "noop_chain" });
  expect(diag.structuredContent).toMatchObject({ run: { run_id: latest.run_id, state: "success" }, task_counts: { success: 3 }, failed_tasks: [], unfinished_tasks: [] });
  const explore = await call(client, "explore_dag", { dag_id: "noop_chain" });
  expect(explore.structuredContent).toMatchObject({ dag: { dag_id: "noop_chain" }, recent_success_rate: 1, import_error: null });
  expect((explore.structuredContent as { tasks: unknown[] }).tasks).toHaveLength(3);
  const health = await call(client, "get_system_health", {});
  expect(health.structuredContent).toMatchObject({ metadatabase: "healthy", scheduler: "healthy", dags: { total: 2, paused: 0 } });
});

test("SVC_MCP_READ_ONLY=true registers no write tool: none is listed and calling one fails", async () => {
  const ro = await connectStdio({ ...stack.env, SVC_MCP_WORKFLOW_ROLE: "op", SVC_MCP_READ_ONLY: "true" }, "test-read-only");
  try {
    const { tools } = await ro.listTools();
    expect(tools.length).toBe(TOOL_COUNT - WRITE_TOOLS.length);
    expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);
    const before = (await runsOf("noop_chain")).length;
    const r = await ro.callTool({ name: "trigger_dag", arguments: { dag_id: "noop_chain" } }).then(
      (x) => x as ToolResult,
      (e: Error) => ({ isError: true, content: [{ type: "text", text: e.message }] }),
    );
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/trigger_dag/);
    expect(await runsOf("noop_chain")).toHaveLength(before);
  } finally {
    await ro.close();
  }
});
