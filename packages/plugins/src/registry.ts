import { centosStream10 } from "./plugins/centos-stream10";
import { centosStream9 } from "./plugins/centos-stream9";
import { debian12 } from "./plugins/debian12";
import { rhel10 } from "./plugins/rhel10";
import { rhel9 } from "./plugins/rhel9";
import { rocky9 } from "./plugins/rocky9";
import type { OsPlugin } from "./types";

/** Every OS plugin, by name. */
export const PLUGINS: readonly OsPlugin[] = [rhel9, rhel10, centosStream9, centosStream10, rocky9, debian12];

export function pluginNames(): string[] {
  return PLUGINS.map((p) => p.name);
}

/** The plugin with this name, or undefined. */
export function findPlugin(name: string): OsPlugin | undefined {
  return PLUGINS.find((p) => p.name === name);
}

/** The plugin that fits a host with this os-release, if any. */
export function pluginForOs(os: { id: string; versionId: string }): OsPlugin | undefined {
  return PLUGINS.find((p) => p.matches(os));
}
