export { runCli, COMMANDS } from "./cli";
export type { CliIo } from "./context";
export { renderRows, normalize, OUTPUT_FORMATS } from "./output";
export type { OutputFormat } from "./output";
