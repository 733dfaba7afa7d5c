import type { SvcConfig } from "@svc/config";
import type { AuthSettings } from "@svc/http";

/** The actor of requests made with the assistant tool server's token (flows it submits are its own). */
export const MCP_ASSISTANT_PRINCIPAL = "mcp-assistant";

/**
 * Who may call the assistant API: its users and tokens, and the assistant tool server's own token
 * (SVC_MCP_ASSISTANT_TOKEN) with the role the operator gave that server (SVC_MCP_ASSISTANT_ROLE).
 */
export function assistantAuth(config: Pick<SvcConfig, "auth" | "mcpAccess">): AuthSettings {
  const token = config.mcpAccess.assistantToken;
  if (!token) return config.auth;
  return { ...config.auth, tokens: [{ name: MCP_ASSISTANT_PRINCIPAL, role: config.mcpAccess.assistantRole, token }] };
}
