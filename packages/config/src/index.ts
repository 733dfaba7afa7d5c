export { loadConfig, ConfigError } from "./config";
export type { SvcConfig, SvcEnv } from "./config";
