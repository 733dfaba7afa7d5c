import { applyChanges } from "./apply";
import { planChanges } from "./plan";
import { probeHost } from "./probe";
import type { DesiredState, OsPlugin, PluginInfo, PluginSettings } from "./types";

/** What an OS plugin file declares; checkState, plan and apply follow from it. */
export interface OsPluginSpec {
  name: string;
  version: string;
  description: string;
  family: "rhel" | "debian";
  /** os-release IDs and the VERSION_ID major this plugin fits. */
  osIds: string[];
  major: string;
  info: PluginInfo;
  desiredState(settings: PluginSettings): DesiredState;
}

/** Build an OS plugin: checkState probes what desiredState names, plan diffs, apply runs the steps. */
export function defineOsPlugin(spec: OsPluginSpec): OsPlugin {
  return {
    name: spec.name,
    kind: "os",
    version: spec.version,
    description: spec.description,
    family: spec.family,
    info: spec.info,
    matches: (os) => spec.osIds.includes(os.id) && os.versionId.split(".")[0] === spec.major,
    desiredState: (settings) => spec.desiredState(settings),
    checkState: (exec, settings) => probeHost(exec, spec.family, spec.desiredState(settings)),
    plan: (current, desired) => planChanges(spec.family, current, desired),
    apply: (plan, exec, hooks) => applyChanges(plan, exec, hooks),
  };
}
