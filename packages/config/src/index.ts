export { loadConfig, ConfigError, dagSettingsFromConfig } from "./config";
export type { SvcConfig, SvcEnv } from "./config";
export type { SvcLimits } from "./limits";
export type { McpAccess } from "./mcp-access";
export { VM_DEFAULTS } from "./vm-defaults";
export { vmSettingsFromEnv } from "./vm-settings";
export type { VmSettingsConfig } from "./vm-settings";
export { defaultKeyPath, resolveSshFiles } from "./ssh-files";
export { hostSettingsLines } from "./host-settings";
