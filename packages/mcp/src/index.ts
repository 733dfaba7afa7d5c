// Shared plumbing of the MCP tool servers.
export { parseTransportArgs } from "./cli-args";
export type { TransportChoice } from "./cli-args";
export { defineTool, registerTools, toolsFor, annotationsOf, toolErrorResult } from "./tool-kit";
export type { ToolDef, ToolTier, ToolContext, ToolAnswer } from "./tool-kit";
export { ToolInputError, describeToolError } from "./tool-error";
export { decideMcpListen } from "./mcp-listen";
export type { McpListenDecision } from "./mcp-listen";
export { startMcpHttpServer } from "./http-server";
export type { McpHttpOptions, McpHttpServer } from "./http-server";
export { createStderrLogger } from "./stderr-logger";
export { runMcpService, mainOf } from "./run-service";
export type { McpServiceSpec, OpenedMcpService } from "./run-service";
export { truncateText, tailLines } from "./text-limits";
export { estimateTokens } from "./tokens";
