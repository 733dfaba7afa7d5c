export { loadConfig, ConfigError, dagSettingsFromConfig } from "./config";
export type { SvcConfig, SvcEnv } from "./config";
export type { SvcLimits } from "./limits";
export { VM_DEFAULTS } from "./vm-defaults";
export { vmSettingsFromEnv } from "./vm-settings";
export type { VmSettingsConfig } from "./vm-settings";
export { defaultKeyPath, resolveSshFiles } from "./ssh-files";
export { hostSettingsLines } from "./host-settings";
export { CHILD_ENV_ALLOWLIST, childEnv } from "./child-env";
