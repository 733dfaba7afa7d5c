import { z } from "zod";

const role = z.enum(["viewer", "user", "op", "admin"]);

/**
 * What the MCP tool servers may do (merged into the config's schema). Each server has its own
 * role, `user` unless the operator says more; a server registers only the tools its role may use.
 * The assistant tool server calls the assistant API with its own bearer token, which the
 * assistant API accepts with that role: never with the admin's credentials.
 */
export const MCP_ACCESS_ENV = {
  /** The workflow tool server's role (its tools reach the engine directly). */
  SVC_MCP_WORKFLOW_ROLE: role.default("user"),
  /** The assistant tool server's role: the tools it registers, and what the assistant API grants its token. */
  SVC_MCP_ASSISTANT_ROLE: role.default("user"),
  /** The bearer token the assistant tool server presents to the assistant API (and the API accepts). */
  SVC_MCP_ASSISTANT_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
};

export interface McpAccess {
  readonly workflowRole: z.infer<typeof role>;
  readonly assistantRole: z.infer<typeof role>;
  /** Never logged or returned. */
  readonly assistantToken: string | undefined;
}

type McpAccessEnv = z.infer<z.ZodObject<typeof MCP_ACCESS_ENV>>;

/** The tool servers' access; `problems` when the assistant's token is one of the API's own credentials. */
export function mcpAccessOf(e: McpAccessEnv & { SVC_API_TOKEN?: string; SVC_ADMIN_PASSWORD?: string }): { access: McpAccess; problems: string[] } {
  const token = e.SVC_MCP_ASSISTANT_TOKEN;
  const problems =
    token !== undefined && (token === e.SVC_API_TOKEN || token === e.SVC_ADMIN_PASSWORD) ? ["SVC_MCP_ASSISTANT_TOKEN: must differ from SVC_API_TOKEN and SVC_ADMIN_PASSWORD"] : [];
  return { access: { workflowRole: e.SVC_MCP_WORKFLOW_ROLE, assistantRole: e.SVC_MCP_ASSISTANT_ROLE, assistantToken: token }, problems };
}
