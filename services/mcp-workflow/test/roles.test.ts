import type { Client } from "@modelcontextprotocol/client";
import { ACTION_ROLES } from "@svc/http";
import { silentLogger } from "@svc/logger";
import { routeRole } from "../../web-ui/src/route-roles";
import { workflowTools } from "../src";
import { connectHttp, connectStdio, FAIL_DAG, spawnHttp, startStack, TOKEN, type Stack } from "./helpers";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
const OP_TOOLS = ["clear_task_instances", "pause_dag", "unpause_dag"];

let stack: Stack;
let server: Awaited<ReturnType<typeof spawnHttp>>;
let asUser: Client;
let asOp: Client;
beforeAll(async () => {
  stack = await startStack("mcproles", { "fail_chain.yaml": FAIL_DAG });
  // The default configuration: no SVC_MCP_WORKFLOW_ROLE, so the server's role is `user`.
  server = await spawnHttp({ ...stack.env, SVC_MCP_TOKEN: TOKEN });
  asUser = await connectHttp(server.url);
  asOp = await connectStdio({ ...stack.env, SVC_MCP_WORKFLOW_ROLE: "op" }, "test-op");
});
afterAll(async () => {
  await asUser?.close();
  await asOp?.close();
  await server?.stop();
  await stack?.close();
});

const call = (c: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  c.callTool({ name, arguments: args }).then(
    (r) => r as ToolResult,
    (e: Error) => ({ isError: true, content: [{ type: "text", text: e.message }] }),
  );
const isPaused = async (dagId: string) => (await stack.tdb.db.selectFrom("dag").select("is_paused").where("dag_id", "=", dagId).executeTakeFirstOrThrow()).is_paused;
const failedRun = async (c: Client) => {
  const r = await call(c, "trigger_dag_and_wait", { dag_id: "fail_chain" });
  expect(r.structuredContent).toMatchObject({ run: { state: "failed" } });
  return (r.structuredContent as { run: { run_id: string } }).run.run_id;
};

test("pausing and clearing need the same role as their REST routes: one action table for both", () => {
  const tools = workflowTools({ api: {} as never, role: "admin", logger: silentLogger() });
  const actionOf = (name: string) => tools.find((t) => t.name === name)?.action;
  expect(actionOf("pause_dag")).toBe("pause_dag");
  expect(actionOf("unpause_dag")).toBe("pause_dag");
  expect(actionOf("clear_task_instances")).toBe("clear_task_instances");
  expect(routeRole("PATCH", "/api/v1/dags/:dag_id")).toBe(ACTION_ROLES.pause_dag);
  expect(routeRole("POST", "/api/v1/dags/:dag_id/clearTaskInstances")).toBe(ACTION_ROLES.clear_task_instances);
  expect(ACTION_ROLES.pause_dag).toBe("op");
  expect(ACTION_ROLES.clear_task_instances).toBe("op");
});

test("a server of the default role user neither lists nor runs pause_dag, unpause_dag or clear_task_instances; an op's pause stands", async () => {
  const { tools } = await asUser.listTools();
  const names = tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["list_dags", "trigger_dag", "trigger_dag_and_wait", "create_vm", "delete_vm"]));
  expect(names.filter((n) => OP_TOOLS.includes(n))).toEqual([]);

  // An op paused the DAG: the user server cannot undo it.
  await stack.tdb.db.updateTable("dag").set({ is_paused: true }).where("dag_id", "=", "vm_like").execute();
  const unpause = await call(asUser, "unpause_dag", { dag_id: "vm_like" });
  expect(unpause.isError).toBe(true);
  expect(unpause.content[0]?.text).toMatch(/unpause_dag/);
  expect(await isPaused("vm_like")).toBe(true);
  const pause = await call(asUser, "pause_dag", { dag_id: "noop_chain" });
  expect(pause.isError).toBe(true);
  expect(await isPaused("noop_chain")).toBe(false);

  // A failed run stays failed: clearing is refused, nothing is reset.
  const runId = await failedRun(asUser);
  const clear = await call(asUser, "clear_task_instances", { dag_id: "fail_chain", run_id: runId });
  expect(clear.isError).toBe(true);
  const boom = await stack.tdb.db.selectFrom("task_instance").select("state").where("run_id", "=", runId).where("task_id", "=", "boom").executeTakeFirstOrThrow();
  expect(boom.state).toBe("failed");
}, 60_000);

test("a server configured op lists them and they work", async () => {
  const { tools } = await asOp.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(OP_TOOLS));
  expect((await call(asOp, "pause_dag", { dag_id: "noop_chain" })).structuredContent).toEqual({ dag_id: "noop_chain", is_paused: true });
  expect(await isPaused("noop_chain")).toBe(true);
  expect((await call(asOp, "unpause_dag", { dag_id: "noop_chain" })).structuredContent).toEqual({ dag_id: "noop_chain", is_paused: false });
  const runId = await failedRun(asOp);
  const cleared = await call(asOp, "clear_task_instances", { dag_id: "fail_chain", run_id: runId, dry_run: true });
  expect((cleared.structuredContent as { cleared: { task_id: string }[] }).cleared.map((c) => c.task_id).sort()).toEqual(["after", "boom"]);
}, 60_000);

test("wrong bearer tokens on /mcp are limited like failed logins: after 10 the client gets 429 with Retry-After, even with the right token", async () => {
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
  const post = (token: string) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify(init),
    });
  for (let i = 0; i < 10; i++) expect((await post(`guess-${i}-0123456789abcdef`)).status).toBe(401);
  const locked = await post("guess-10-0123456789abcdef");
  expect(locked.status).toBe(429);
  expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(((await locked.json()) as { status: number }).status).toBe(429);
  expect((await post(TOKEN)).status).toBe(429);
});
