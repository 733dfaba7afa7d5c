import { z } from "zod";

const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");
const port = z.coerce.number().int().min(0).max(65535);

/** The tool servers' own variables (the rest comes from @svc/config). */
const mcpEnvSchema = z.object({
  SVC_MCP_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SVC_MCP_READ_ONLY: bool.default(false),
  SVC_MCP_WORKFLOW_PORT: port.default(8889),
  SVC_MCP_ASSISTANT_PORT: port.default(8890),
  /** Extra browser origins (hostnames) allowed to call /mcp, comma separated; loopback is always allowed. */
  SVC_MCP_ALLOWED_ORIGINS: z.string().default(""),
  /** The assistant API the assistant tool server drives; default: loopback on SVC_ASSISTANT_PORT. */
  SVC_ASSISTANT_URL: z.string().url().optional(),
});

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

/** Thrown by loadMcpSettings; names each bad variable, never its value. */
export class McpSettingsError extends Error {
  readonly code = "config_invalid";
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "McpSettingsError";
  }
}

/** Parse the tool servers' variables once at start-up (empty strings mean unset). */
export function loadMcpSettings(env: Record<string, string | undefined>): McpSettings {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in mcpEnvSchema.shape && v !== undefined && v !== ""));
  const parsed = mcpEnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new McpSettingsError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  const e = parsed.data;
  return Object.freeze({
    token: e.SVC_MCP_TOKEN,
    readOnly: e.SVC_MCP_READ_ONLY,
    workflowPort: e.SVC_MCP_WORKFLOW_PORT,
    assistantPort: e.SVC_MCP_ASSISTANT_PORT,
    allowedOrigins: Object.freeze(
      e.SVC_MCP_ALLOWED_ORIGINS.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    assistantUrl: e.SVC_ASSISTANT_URL?.replace(/\/+$/, ""),
  });
}
