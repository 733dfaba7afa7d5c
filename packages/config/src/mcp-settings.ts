import { z } from "zod";

const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");
const port = z.coerce.number().int().min(0).max(65535);

/** The tool servers' variables (merged into the config's schema; SvcConfig.mcp). */
export const MCP_ENV = {
  SVC_MCP_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SVC_MCP_READ_ONLY: bool.default(false),
  SVC_MCP_WORKFLOW_PORT: port.default(8889),
  SVC_MCP_ASSISTANT_PORT: port.default(8890),
  /** Extra browser origins (hostnames) allowed to call /mcp, comma separated; loopback is always allowed. */
  SVC_MCP_ALLOWED_ORIGINS: z.string().default(""),
  /** The assistant API the assistant tool server drives; default: loopback on SVC_ASSISTANT_PORT. */
  SVC_ASSISTANT_URL: z.string().url().optional(),
};

type McpEnv = z.infer<z.ZodObject<typeof MCP_ENV>>;

/** The tool servers' settings (SvcConfig.mcp). */
export interface McpSettings {
  /** Bearer token required on HTTP; never logged or returned. */
  readonly token: string | undefined;
  /** When true no write tool is registered at all. */
  readonly readOnly: boolean;
  readonly workflowPort: number;
  readonly assistantPort: number;
  readonly allowedOrigins: readonly string[];
  readonly assistantUrl: string | undefined;
}

export function mcpSettingsOf(e: McpEnv): McpSettings {
  return {
    token: e.SVC_MCP_TOKEN,
    readOnly: e.SVC_MCP_READ_ONLY,
    workflowPort: e.SVC_MCP_WORKFLOW_PORT,
    assistantPort: e.SVC_MCP_ASSISTANT_PORT,
    allowedOrigins: e.SVC_MCP_ALLOWED_ORIGINS.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    assistantUrl: e.SVC_ASSISTANT_URL?.replace(/\/+$/, ""),
  };
}
