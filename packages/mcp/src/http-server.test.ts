import { McpServer } from "@modelcontextprotocol/server";
import { silentLogger } from "@svc/logger";
import { startMcpHttpServer, type McpHttpServer } from "./http-server";

let server: McpHttpServer;
let base: string;
beforeAll(async () => {
  server = await startMcpHttpServer({
    name: "probe",
    factory: () => new McpServer({ name: "probe", version: "0.0.0" }),
    host: "127.0.0.1",
    port: 0,
    token: "tok-mcp-123",
    allowedOrigins: [],
    logger: silentLogger(),
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
});

/** The problem a refused request answers, with its content type and challenge. */
async function problemOf(res: Response) {
  return { status: res.status, contentType: res.headers.get("content-type"), challenge: res.headers.get("www-authenticate"), body: (await res.json()) as Record<string, unknown> };
}

test("refusals are problem JSON from the shared helper, with the same type URIs as the REST APIs", async () => {
  const missing = await problemOf(await fetch(`${base}/nope`));
  expect(missing).toMatchObject({ status: 404, contentType: expect.stringMatching(/^application\/problem\+json/) });
  expect(missing.body).toEqual({ type: "https://svc.dev/docs/errors#not_found", title: "Not Found", status: 404, detail: expect.stringContaining("/mcp") });

  const anonymous = await problemOf(await fetch(`${base}/mcp`, { method: "POST", body: "{}" }));
  expect(anonymous.challenge).toBe('Bearer realm="mcp"');
  expect(anonymous.body).toMatchObject({ type: "https://svc.dev/docs/errors#unauthenticated", title: "Unauthorized", status: 401 });

  const foreign = await problemOf(await fetch(`${base}/mcp`, { method: "POST", body: "{}", headers: { authorization: "Bearer tok-mcp-123", origin: "https://evil.example" } }));
  expect(foreign.body).toEqual({ type: "https://svc.dev/docs/errors#forbidden", title: "Forbidden", status: 403, detail: "Origin not allowed" });
});
