export { loadConfig, ConfigError, dagSettingsFromConfig } from "./config";
export type { SvcConfig, SvcEnv } from "./config";
