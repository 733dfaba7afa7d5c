import type { Server } from "node:http";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { freePort } from "@svc/testing";
import { createStack, type Stack } from "../../assistant-api/test/stack";
import { vmDagHead } from "../../assistant-api/test/vm-dag";
import { spawnHttp } from "../../mcp-workflow/test/helpers";

/**
 * The assistant tool server end to end, as compose runs it: the assistant API with an admin login,
 * an admin API token and the tool server's own token; the tool server (the real bin over Streamable
 * HTTP) is handed the admin secrets too, and must not use them. An MCP client with the MCP token
 * asks for a foreign domain to be deleted with force_foreign and auto_approve.
 */
const BIN = path.resolve(__dirname, "../bin/svc-mcp-assistant");
const DOCS = path.resolve(__dirname, "../../assistant-api/test/fixtures/docs");
const MCP_TOKEN = "mcp-transport-token-0123456789";
const ASSISTANT_TOKEN = "mcp-assistant-own-token-0123456789";
const ADMIN = { SVC_ADMIN_USER: "admin", SVC_ADMIN_PASSWORD: "admin-password-0123456789", SVC_API_TOKEN: "admin-api-token-0123456789" };
// vm_deployment as shipped reserves force_foreign for an op (dags/vm_deployment.yaml); a no-op stand-in.
const VM_DAG = `${vmDagHead("Create or delete a virtual machine on the local hypervisor.")}  force_foreign: {type: boolean, default: false, min_role: op, description: delete a domain svc did not create}
examples:
  - delete the vm called web01
tasks:
  - {task_id: delete_vm, operator: noop}
`;
const DELETE_FOREIGN = {
  intent: "delete the vm called legacy-db",
  params: { action: "delete", vm_name: "legacy-db", force_foreign: true },
  auto_approve: true,
};
type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

let s: Stack;
let api: Server;
let env: Record<string, string>;
let mcp: Awaited<ReturnType<typeof spawnHttp>>;
let client: Client;
beforeAll(async () => {
  s = await createStack("secmcp", { env: { ...ADMIN, SVC_MCP_ASSISTANT_TOKEN: ASSISTANT_TOKEN }, extraDags: { "vm-deployment.yaml": VM_DAG } });
  const port = await freePort();
  api = s.app.listen(port, "127.0.0.1");
  env = { SVC_ASSISTANT_URL: `http://127.0.0.1:${port}`, SVC_DOCS_DIR: DOCS, SVC_LOG_LEVEL: "warn", ...ADMIN, SVC_MCP_ASSISTANT_TOKEN: ASSISTANT_TOKEN };
  mcp = await spawnHttp({ ...env, SVC_MCP_TOKEN: MCP_TOKEN }, BIN);
  client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: `Bearer ${MCP_TOKEN}` } } }));
}, 90_000);
afterAll(async () => {
  await client?.close();
  await mcp?.stop();
  await new Promise((r) => api?.close(r));
  await s?.close();
});

const call = (c: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  c.callTool({ name, arguments: args }).then(
    (r) => r as ToolResult,
    (e: Error) => ({ isError: true, content: [{ type: "text", text: e.message }] }),
  );
const vmRuns = () => s.tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "vm_deployment").execute();

test("the default assistant tool server offers no approval: approve_flow is not listed and submit_intent has no auto_approve", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["submit_intent", "answer_flow", "get_flow", "search_docs"]));
  expect(names).not.toContain("approve_flow");
  const submit = tools.find((t) => t.name === "submit_intent")!;
  expect(Object.keys((submit.inputSchema as { properties: Record<string, unknown> }).properties)).not.toContain("auto_approve");
});

test("an MCP client cannot get a foreign domain deleted: force_foreign with auto_approve waits for an op, approve_flow is refused, no run starts", async () => {
  const r = await call(client, "submit_intent", DELETE_FOREIGN);
  expect(r.isError).toBeFalsy();
  const flow = (r.structuredContent as { flow: { flow_id: string; status: string; run_id: string | null; dag_id: string } }).flow;
  expect(flow).toMatchObject({ dag_id: "vm_deployment", status: "awaiting_approval", run_id: null });
  expect(r.content[0]?.text).not.toMatch(/approve_flow/);

  const approve = await call(client, "approve_flow", { flow_id: flow.flow_id });
  expect(approve.isError).toBe(true);
  expect(approve.content[0]?.text).toMatch(/approve_flow/);

  // The flow waits for an op on the API itself; nothing ran.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await s.flow(flow.flow_id)).toMatchObject({ status: "awaiting_approval", run_id: null, auto_approve: false });
  expect(await vmRuns()).toEqual([]);
}, 60_000);

test("a tool server configured op whose token the API grants only user still cannot approve: the API refuses it", async () => {
  const opServer = new Client({ name: "agent-op", version: "1.0.0" });
  await opServer.connect(
    new StdioClientTransport({ command: BIN, args: ["--stdio"], env: { PATH: process.env.PATH ?? "", ...env, SVC_MCP_ASSISTANT_ROLE: "op" }, stderr: "ignore" }),
  );
  try {
    expect((await opServer.listTools()).tools.map((t) => t.name)).toContain("approve_flow");
    const r = await call(opServer, "submit_intent", DELETE_FOREIGN);
    const flow = (r.structuredContent as { flow: { flow_id: string; status: string } }).flow;
    expect(flow.status).toBe("awaiting_approval");
    const approve = await call(opServer, "approve_flow", { flow_id: flow.flow_id });
    expect(approve.isError).toBe(true);
    expect(approve.content[0]?.text).toMatch(/needs the role 'op'/);
    expect(await s.flow(flow.flow_id)).toMatchObject({ status: "awaiting_approval", run_id: null });
    expect(await vmRuns()).toEqual([]);
  } finally {
    await opServer.close();
  }
}, 60_000);
