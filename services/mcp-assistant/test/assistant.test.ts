import type { Server } from "node:http";
import path from "node:path";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createDocsIndex } from "@svc/assistant";
import { silentLogger } from "@svc/logger";
import { freePort } from "@svc/testing";
import { createStack, type Stack } from "../../assistant-api/test/stack";
import { spawnHttp } from "../../mcp-workflow/test/helpers";
import { createAssistantClient, createAssistantServer, createIntentStateCodec } from "../src";

const BIN = path.resolve(__dirname, "../bin/svc-mcp-assistant");
const DOCS = path.resolve(__dirname, "../../assistant-api/test/fixtures/docs");
const TOKEN = "assistant-mcp-token-0123456789";
type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
type Flow = { flow_id: string; status: string; run_id: string | null; question: string | null; dag_id: string | null; params: Record<string, unknown> };

let s: Stack;
let api: Server;
let apiUrl: string;
let env: Record<string, string>;
const asked: { message: string; fields: string[] }[] = [];
let client: Client;

beforeAll(async () => {
  s = await createStack("mcpassist");
  const port = await freePort();
  api = s.app.listen(port, "127.0.0.1");
  apiUrl = `http://127.0.0.1:${port}`;
  // A server configured as an op (the API of this stack is open): every tool, approval included. What a
  // server of the default role `user` offers is held by privilege.test.ts.
  env = { PATH: process.env.PATH ?? "", SVC_ASSISTANT_URL: apiUrl, SVC_DOCS_DIR: DOCS, SVC_LOG_LEVEL: "warn", SVC_MCP_ASSISTANT_ROLE: "op" };
  // A client that supports form elicitation: it answers the VM name the user would type.
  client = new Client({ name: "eliciting-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler("elicitation/create", async (req) => {
    const params = req.params as { message: string; requestedSchema?: { properties?: Record<string, unknown> } };
    asked.push({ message: params.message, fields: Object.keys(params.requestedSchema?.properties ?? {}) });
    return { action: "accept", content: { vm_name: "web07" } };
  });
  await client.connect(new StdioClientTransport({ command: BIN, args: ["--stdio"], env, stderr: "ignore" }));
});
afterAll(async () => {
  await client?.close();
  await new Promise((r) => api?.close(r));
  await s?.close();
});

const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolResult;
const flowOf = (r: ToolResult) => (r.structuredContent as { flow: Flow }).flow;

test("the assistant server configured as an op lists its seven tools with output schemas; reads are readOnlyHint true, intent tools false", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(["answer_flow", "approve_flow", "ask", "get_flow", "observe_dag", "search_docs", "submit_intent"]);
  const readOnly = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
  expect(readOnly).toEqual({ search_docs: true, ask: true, get_flow: true, observe_dag: true, submit_intent: false, answer_flow: false, approve_flow: false });
  expect(tools.every((t) => t.outputSchema)).toBe(true);
});

test("search_docs returns passages with their source file; ask answers citing its sources", async () => {
  const hits = await call(client, "search_docs", { query: "DAG missing import errors reserialize" });
  const data = hits.structuredContent as { hits: { path: string; excerpt: string }[] };
  expect(data.hits[0]?.path).toMatch(/troubleshooting\.md#dag-missing-in-the-workflow-ui$/);
  expect(data.hits[0]?.excerpt).toMatch(/reserialize/);
  const answer = await call(client, "ask", { question: "A DAG is missing in the workflow UI, what do I do?" });
  expect(answer.isError).toBeFalsy();
  const a = answer.structuredContent as { answer: string; sources: { path: string }[] };
  expect(a.sources.map((x) => x.path).join(" ")).toMatch(/troubleshooting\.md/);
  expect(answer.content[0]?.text).toMatch(/Sources:/);
});

test("submit_intent whose VM name is a path asks the user through elicitation and the flow continues with the answer", async () => {
  const r = await call(client, "submit_intent", { intent: "create a vm called ../../etc/passwd", auto_approve: true });
  expect(r.isError).toBeFalsy();
  expect(asked).toHaveLength(1);
  expect(asked[0]!.fields).toEqual(["vm_name"]);
  expect(asked[0]!.message).toMatch(/What should the VM be called/);
  expect(r.structuredContent).toMatchObject({ elicited: true, flow: { dag_id: "vm_deployment", params: { vm_name: "web07" } } });
  expect(flowOf(r).status).not.toBe("needs_input");
});

test("a VM intent waits for approval; approve_flow runs it; get_flow and observe_dag follow it", async () => {
  const submitted = flowOf(await call(client, "submit_intent", { intent: "create a vm called web01" }));
  expect(submitted).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", run_id: null });
  const approved = flowOf(await call(client, "approve_flow", { flow_id: submitted.flow_id }));
  expect(approved.status).toBe("in_progress");
  expect(approved.run_id).toEqual(expect.any(String));
  const fetched = flowOf(await call(client, "get_flow", { flow_id: submitted.flow_id }));
  expect(fetched.flow_id).toBe(submitted.flow_id);
  const observed = await call(client, "observe_dag", { dag_id: "vm_deployment", run_id: approved.run_id! });
  expect(observed.structuredContent).toMatchObject({ overall_status: expect.stringMatching(/pending|running|success|failed/) });
  const again = await call(client, "approve_flow", { flow_id: submitted.flow_id });
  expect(again.isError).toBe(true);
  expect(again.content[0]?.text).toMatch(/awaiting_approval/);
  const bad = await call(client, "get_flow", { flow_id: "../../etc" });
  expect(bad.isError).toBe(true);
  expect(bad.content[0]?.text).toMatch(/flow_id/);
});

test("over Streamable HTTP a 2025 client without a session gets the question back (answer_flow answers it), a 2026 client is asked in the call; 401 without the token", async () => {
  const server = await spawnHttp({ ...env, SVC_MCP_TOKEN: TOKEN }, BIN);
  try {
    const denied = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(denied.status).toBe(401);
    const http = new Client({ name: "http-client", version: "1.0.0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    const r = await call(http, "submit_intent", { intent: "create a vm called ../../etc/passwd", auto_approve: true });
    expect(r.structuredContent).toMatchObject({ elicited: false, flow: { status: "needs_input" } });
    expect(flowOf(r).question).toMatch(/What should the VM be called/);
    expect(r.content[0]?.text).toMatch(/answer_flow/);
    const answered = flowOf(await call(http, "answer_flow", { flow_id: flowOf(r).flow_id, params: { vm_name: "web09" } }));
    expect(answered.params).toMatchObject({ vm_name: "web09" });
    expect(answered.status).not.toBe("needs_input");
    await http.close();
    // A 2026-07-28 client that can show forms is asked within the one call (an input_required round trip).
    const modern = new Client({ name: "modern-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
    const modernAsked: string[] = [];
    modern.setRequestHandler("elicitation/create", async (req) => {
      modernAsked.push((req.params as { message: string }).message);
      return { action: "accept", content: { vm_name: "web11" } };
    });
    await modern.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    expect(modern.getProtocolEra()).toBe("modern");
    const m = await call(modern, "submit_intent", { intent: "create a vm called ../../etc/passwd", auto_approve: true });
    expect(modernAsked).toHaveLength(1);
    expect(m.structuredContent).toMatchObject({ elicited: true, flow: { params: { vm_name: "web11" } } });
    await modern.close();
  } finally {
    await server.stop();
  }
});

test("read-only mode registers only the four read tools, whatever the role", async () => {
  const deps = {
    role: "admin" as const,
    stateCodec: createIntentStateCodec(),
    api: createAssistantClient({ baseUrl: apiUrl, authorization: undefined, timeoutMs: 10_000 }),
    logger: silentLogger(),
    docs: () => createDocsIndex({ docsDir: DOCS }),
  };
  const server = createAssistantServer(deps, { readOnly: true });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const c = new Client({ name: "in-memory", version: "1.0.0" });
  await c.connect(b);
  const { tools } = await c.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(["ask", "get_flow", "observe_dag", "search_docs"]);
  await c.close();
  await server.close();
});
