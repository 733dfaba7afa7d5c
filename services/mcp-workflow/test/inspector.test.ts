import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { estimateTokens } from "@svc/mcp";
import { connectHttp, spawnHttp, startStack, TOKEN, type Stack } from "./helpers";

const run = promisify(execFile);
const INSPECTOR = require.resolve("@modelcontextprotocol/inspector-cli/build/index.js");
const CATALOGUE_DIR = path.resolve(__dirname, "../../../dags");

let stack: Stack;
let server: Awaited<ReturnType<typeof spawnHttp>>;
beforeAll(async () => {
  // The shipped catalogue next to the test DAGs: answers are measured on what users see.
  const catalogue = Object.fromEntries(
    readdirSync(CATALOGUE_DIR)
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => [f, readFileSync(path.join(CATALOGUE_DIR, f), "utf8")]),
  );
  stack = await startStack("mcpinspect", catalogue);
  server = await spawnHttp({ ...stack.env, SVC_MCP_TOKEN: TOKEN });
});
afterAll(async () => {
  await server?.stop();
  await stack?.close();
});

/** The MCP Inspector's CLI (an external client built on the v1 SDK) against our server. */
async function inspector(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [INSPECTOR, server.url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`, ...args], {
    timeout: 60_000,
    // The CLI looks for its package.json relative to the working directory: run it from its own folder.
    cwd: path.dirname(INSPECTOR),
  });
  return JSON.parse(stdout);
}

test("the MCP Inspector CLI lists the tools and calls list_dags over Streamable HTTP", async () => {
  const listed = (await inspector("--method", "tools/list")) as { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] };
  expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["list_dags", "trigger_dag_and_wait", "diagnose_dag_run", "get_task_logs"]));
  expect(listed.tools.find((t) => t.name === "list_dags")?.annotations?.readOnlyHint).toBe(true);
  const called = (await inspector("--method", "tools/call", "--tool-name", "list_dags", "--tool-arg", "tag=vm")) as { structuredContent: { dags: { dag_id: string }[] } };
  expect(called.structuredContent.dags.map((d) => d.dag_id)).toContain("vm_like");
});

test("list_dags over the shipped catalogue stays small (well under 1500 tokens)", async () => {
  const client = await connectHttp(server.url);
  try {
    const r = (await client.callTool({ name: "list_dags", arguments: {} })) as { structuredContent: { total: number } };
    expect(r.structuredContent.total).toBeGreaterThanOrEqual(readdirSync(CATALOGUE_DIR).filter((f) => f.endsWith(".yaml")).length);
    expect(estimateTokens(JSON.stringify(r))).toBeLessThan(1500);
  } finally {
    await client.close();
  }
});
