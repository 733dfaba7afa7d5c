import { ConfigError, loadConfig } from "./config";

const problemsOf = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return "";
};

test("the tool servers' roles default to user; the assistant tool server has no token unless one is set", () => {
  expect(loadConfig({}).mcpAccess).toEqual({ workflowRole: "user", assistantRole: "user", assistantToken: undefined });
  const c = loadConfig({ SVC_MCP_WORKFLOW_ROLE: "op", SVC_MCP_ASSISTANT_ROLE: "viewer", SVC_MCP_ASSISTANT_TOKEN: "own-token-0123456789" });
  expect(c.mcpAccess).toEqual({ workflowRole: "op", assistantRole: "viewer", assistantToken: "own-token-0123456789" });
});

test("an unknown role, a short token, or a token that is the API token or the admin password is refused naming the variable, never its value", () => {
  expect(problemsOf({ SVC_MCP_WORKFLOW_ROLE: "root" })).toMatch(/SVC_MCP_WORKFLOW_ROLE/);
  expect(problemsOf({ SVC_MCP_ASSISTANT_TOKEN: "short-secret" })).toMatch(/SVC_MCP_ASSISTANT_TOKEN: must be at least 16/);
  const shared: Record<string, string>[] = [
    { SVC_API_TOKEN: "shared-secret-0123456789", SVC_MCP_ASSISTANT_TOKEN: "shared-secret-0123456789" },
    { SVC_ADMIN_USER: "admin", SVC_ADMIN_PASSWORD: "shared-secret-0123456789", SVC_MCP_ASSISTANT_TOKEN: "shared-secret-0123456789" },
  ];
  for (const env of shared) {
    const message = problemsOf(env);
    expect(message).toMatch(/SVC_MCP_ASSISTANT_TOKEN: must differ from SVC_API_TOKEN and SVC_ADMIN_PASSWORD/);
    expect(message).not.toContain("shared-secret");
  }
});
