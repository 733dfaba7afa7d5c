export type {
  OsPlugin,
  PluginSettings,
  PluginInfo,
  HostState,
  DesiredState,
  DaemonSpec,
  Change,
  ChangeKind,
  Step,
  StepFailure,
  ApplyReport,
  ApplyHooks,
} from "./types";
export { PLUGINS, findPlugin, pluginForOs, pluginNames } from "./registry";
export { pluginSettings } from "./settings";
export { deployPlugin, PluginMismatchError, DeployDeclinedError } from "./deploy";
export type { DeployReport, DeployOptions } from "./deploy";
export { planChanges, missingPackages } from "./plan";
export { applyChanges } from "./apply";
export { probeHost } from "./probe";
export { defineOsPlugin } from "./define";
export type { OsPluginSpec } from "./define";
export { runCli } from "./cli/run";
export type { CliIo } from "./cli/run";
