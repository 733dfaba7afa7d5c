export { runCli, COMMANDS } from "./cli";
export { exitCodeOf } from "./exit-code";
export type { CliIo } from "./context";
export { renderRows, normalize, OUTPUT_FORMATS } from "./output";
export type { OutputFormat } from "./output";
