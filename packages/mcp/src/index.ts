export { defineTool, registerTools } from "./tool-kit";
export type { ToolDef, ToolContext } from "./tool-kit";
export { ToolInputError } from "./tool-error";
export { mainOf } from "./run-service";
export { truncateText, tailLines } from "./text-limits";
export { estimateTokens } from "./tokens";
