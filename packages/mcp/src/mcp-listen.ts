import type { McpSettings, SvcConfig } from "@svc/config";

export type McpListenDecision = { ok: true; host: string; open: boolean; warning?: string } | { ok: false; reason: string };

/**
 * Where the Streamable HTTP transport may listen. With SVC_MCP_TOKEN: SVC_BIND_HOST (default all
 * interfaces), token required. Production without a token refuses to start. Development without
 * a token is open but bound to 127.0.0.1 only.
 */
export function decideMcpListen(config: Pick<SvcConfig, "deploymentMode" | "http">, settings: Pick<McpSettings, "token">): McpListenDecision {
  if (settings.token) return { ok: true, host: config.http.bindHost ?? "0.0.0.0", open: false };
  if (config.deploymentMode === "production") {
    return { ok: false, reason: "refusing to start the HTTP transport in production without SVC_MCP_TOKEN" };
  }
  return { ok: true, host: "127.0.0.1", open: true, warning: "SVC_MCP_TOKEN not set: /mcp is open and listens on 127.0.0.1 only" };
}
