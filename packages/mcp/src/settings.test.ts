import { ConfigError, loadConfig } from "@svc/config";
import { decideMcpListen } from "./mcp-listen";
import { parseTransportArgs } from "./cli-args";

const dev = { deploymentMode: "development" as const, http: { assistantPort: 8080, webUiPort: 8888, bindHost: undefined, maxPageLimit: 100, trustProxy: "loopback" } };

test("settings default to read-write, ports 8889/8890, no token; a short token is refused without echoing it", () => {
  expect(loadConfig({}).mcp).toMatchObject({ token: undefined, readOnly: false, workflowPort: 8889, assistantPort: 8890, allowedOrigins: [] });
  expect(loadConfig({ SVC_MCP_READ_ONLY: "true", SVC_MCP_ALLOWED_ORIGINS: "a.example, b.example" }).mcp).toMatchObject({
    readOnly: true,
    allowedOrigins: ["a.example", "b.example"],
  });
  let err: unknown;
  try {
    loadConfig({ SVC_MCP_TOKEN: "short-secret" });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toMatch(/SVC_MCP_TOKEN/);
  expect((err as Error).message).not.toContain("short-secret");
});

test("production without a token refuses HTTP; development without one binds loopback only; a token opens SVC_BIND_HOST", () => {
  expect(decideMcpListen({ ...dev, deploymentMode: "production" }, { token: undefined })).toMatchObject({ ok: false, reason: expect.stringMatching(/SVC_MCP_TOKEN/) });
  expect(decideMcpListen(dev, { token: undefined })).toMatchObject({ ok: true, host: "127.0.0.1", open: true });
  expect(decideMcpListen({ ...dev, deploymentMode: "production" }, { token: "x".repeat(20) })).toMatchObject({ ok: true, host: "0.0.0.0", open: false });
});

test("transport arguments: stdio by default, --http with an optional port; anything else names the bad argument", () => {
  expect(parseTransportArgs([])).toEqual({ kind: "stdio" });
  expect(parseTransportArgs(["--http"])).toEqual({ kind: "http", port: undefined });
  expect(parseTransportArgs(["--http", "--port", "9001"])).toEqual({ kind: "http", port: 9001 });
  expect(parseTransportArgs(["--http", "--port=0"])).toEqual({ kind: "http", port: 0 });
  expect(() => parseTransportArgs(["--http", "--port", "99999"])).toThrow(/--port/);
  expect(() => parseTransportArgs(["--stdio", "--port", "1"])).toThrow(/--port only applies with --http/);
  expect(() => parseTransportArgs(["--sse"])).toThrow(/unknown argument '--sse'/);
});
