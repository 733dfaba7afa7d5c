import { spawn } from "node:child_process";
import type { Client } from "@modelcontextprotocol/client";
import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { estimateTokens } from "@svc/mcp";
import { BIN, connectHttp, FAIL_DAG, progressOnTheWire, spawnHttp, startStack, TOKEN, type Stack } from "./helpers";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const post = (url: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(INIT) });

let stack: Stack;
let server: Awaited<ReturnType<typeof spawnHttp>>;
let client: Client;
beforeAll(async () => {
  stack = await startStack("mcphttp", { "fail_chain.yaml": FAIL_DAG });
  // A server configured as an op: every tool (what the default role offers: roles.test.ts).
  server = await spawnHttp({ ...stack.env, SVC_MCP_TOKEN: TOKEN, SVC_MCP_WORKFLOW_ROLE: "op" });
  client = await connectHttp(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.stop();
  await stack?.close();
});

test("/mcp without the bearer token, or with a wrong one, is 401 problem JSON with a Bearer challenge", async () => {
  for (const headers of [
    {} as Record<string, string>,
    { authorization: "Bearer wrong-token-wrong-token" },
    { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
  ]) {
    const res = await post(server.url, headers);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 401, title: "Unauthorized", type: expect.any(String), detail: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain(TOKEN);
  }
  const anonymous = new SdkClient({ name: "anon", version: "1" });
  await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow(/401|Unauthorized|authenticat/i);
});

test("a browser Origin that is not allowed is refused with 403 even with the token", async () => {
  const res = await post(server.url, { authorization: `Bearer ${TOKEN}`, origin: "https://evil.example" });
  expect(res.status).toBe(403);
  const ok = await post(server.url, { authorization: `Bearer ${TOKEN}`, origin: "http://localhost:5173" });
  expect(ok.status).toBe(200);
});

test("with the token the SDK client lists every tool with annotations over Streamable HTTP", async () => {
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(21);
  expect(tools.every((t) => typeof t.annotations?.readOnlyHint === "boolean" && t.outputSchema)).toBe(true);
});

test("trigger_dag_and_wait over HTTP ends in success with a progress notification per task", async () => {
  const { result, progress } = await progressOnTheWire(client, () =>
    client.callTool({ name: "trigger_dag_and_wait", arguments: { dag_id: "noop_chain" } }, { onprogress: () => undefined }),
  );
  expect((result as ToolResult).structuredContent).toMatchObject({ run: { state: "success" }, timed_out: false });
  expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
});

test("a 2026-07-28 client (auto negotiation) gets the same tools and per-task progress over HTTP", async () => {
  const modern = new SdkClient({ name: "modern", version: "1" }, { versionNegotiation: { mode: "auto" } });
  await modern.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  try {
    expect(modern.getProtocolEra()).toBe("modern");
    expect((await modern.listTools()).tools).toHaveLength(21);
    const { result, progress } = await progressOnTheWire(modern, () =>
      modern.callTool({ name: "trigger_dag_and_wait", arguments: { dag_id: "noop_chain" } }, { onprogress: () => undefined }),
    );
    expect((result as ToolResult).structuredContent).toMatchObject({ run: { state: "success" } });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
  } finally {
    await modern.close();
  }
});

test("diagnose_dag_run on a failed run names the failed task with its log tail and recommends a fix, in a small answer", async () => {
  const run = (await client.callTool({ name: "trigger_dag_and_wait", arguments: { dag_id: "fail_chain" } })) as ToolResult;
  expect(run.structuredContent).toMatchObject({ run: { state: "failed" } });
  expect(run.content[0]?.text).toMatch(/failed: boom/);
  const r = (await client.callTool({ name: "diagnose_dag_run", arguments: { dag_id: "fail_chain" } })) as ToolResult;
  const data = r.structuredContent as { failed_tasks: { task_id: string; log_tail: string }[]; concerns: string[]; recommendations: string[]; task_counts: Record<string, number> };
  expect(data.failed_tasks.map((t) => t.task_id)).toEqual(["boom"]);
  expect(data.failed_tasks[0]?.log_tail).toContain("disk full on /var/lib/svc");
  expect(data.task_counts).toEqual({ failed: 1, upstream_failed: 1 });
  expect(data.concerns.join(" ")).toMatch(/boom/);
  expect(data.recommendations.join(" ")).toMatch(/clear_task_instances/);
  expect(estimateTokens(JSON.stringify(r))).toBeLessThan(1500);
  const cleared = (await client.callTool({
    name: "clear_task_instances",
    arguments: { dag_id: "fail_chain", run_id: (run.structuredContent as { run: { run_id: string } }).run.run_id, dry_run: true },
  })) as ToolResult;
  // The failed task and the one that could not run because of it.
  expect(cleared.structuredContent).toMatchObject({ dry_run: true });
  expect((cleared.structuredContent as { cleared: { task_id: string }[] }).cleared.map((c) => c.task_id).sort()).toEqual(["after", "boom"]);
});

test("production mode refuses to start the HTTP transport without a token", async () => {
  const child = spawn(BIN, ["--http", "--port", "0"], {
    env: { PATH: process.env.PATH ?? "", ...stack.env, SVC_DEPLOYMENT_MODE: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect(code).toBe(1);
  expect(stderr).toMatch(/SVC_MCP_TOKEN/);
});
