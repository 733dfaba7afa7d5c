export { loadConfig, ConfigError, dagSettingsFromConfig } from "./config";
export type { SvcConfig, SvcEnv } from "./config";
export { VM_DEFAULTS } from "./vm-defaults";
export { defaultKeyPath, resolveSshFiles } from "./ssh-files";
export { hostSettingsLines } from "./host-settings";
