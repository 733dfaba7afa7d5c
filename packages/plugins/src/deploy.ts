import type { HostExecutor } from "@svc/host";
import type { ApplyHooks, Change, OsPlugin, PluginSettings, StepFailure } from "./types";

/** What a deploy did (or, in a dry run, would do). */
export interface DeployReport {
  plugin: string;
  target: string;
  dryRun: boolean;
  /** Every change planned, in order (a second pass adds the libvirt changes once libvirtd answers). */
  changes: Change[];
  applied: string[];
  failed: StepFailure[];
  notTried: string[];
  notes: string[];
}

export interface DeployOptions {
  dryRun: boolean;
  hooks?: ApplyHooks;
  /** Asked before changing anything when there are changes; false stops the deploy. */
  confirm?: (changes: Change[]) => Promise<boolean>;
}

/** The plugin does not fit the host's OS. */
export class PluginMismatchError extends Error {
  readonly code = "plugin_mismatch";
}

/** The operator declined the changes (or gave no --yes without a terminal). */
export class DeployDeclinedError extends Error {
  readonly code = "deploy_declined";
  constructor(readonly changes: Change[]) {
    super(`${changes.length} change(s) not confirmed: nothing was changed`);
  }
}

/**
 * checkState → desiredState → plan → apply. libvirt's pools and networks can only be read once
 * libvirtd answers, so when it did not at first, a second pass plans them after the first applied.
 */
export async function deployPlugin(plugin: OsPlugin, exec: HostExecutor, settings: PluginSettings, opts: DeployOptions): Promise<DeployReport> {
  const desired = plugin.desiredState(settings);
  const current = await plugin.checkState(exec, settings);
  if (!plugin.matches(current.os)) {
    throw new PluginMismatchError(`plugin ${plugin.name} does not fit ${exec.target} (${current.os.prettyName || `${current.os.id} ${current.os.versionId}`})`);
  }
  const changes = plugin.plan(current, desired);
  const report: DeployReport = { plugin: plugin.name, target: exec.target, dryRun: opts.dryRun, changes, applied: [], failed: [], notTried: [], notes: [] };
  if (!current.libvirt.reachable) report.notes.push("libvirtd does not answer yet: its storage pool and network are planned once it runs");
  if (opts.dryRun || changes.length === 0) return report;
  if (opts.confirm && !(await opts.confirm(changes))) throw new DeployDeclinedError(changes);

  const first = await plugin.apply(changes, exec, opts.hooks);
  Object.assign(report, { applied: first.applied, failed: first.failed, notTried: first.notTried });
  if (first.failed.length || current.libvirt.reachable) return report;

  const again = plugin.plan(await plugin.checkState(exec, settings), desired);
  const more = again.filter((c) => !first.applied.includes(c.id));
  if (!more.length) return report;
  report.changes.push(...more);
  const second = await plugin.apply(more, exec, opts.hooks);
  report.applied.push(...second.applied);
  report.failed.push(...second.failed);
  report.notTried.push(...second.notTried);
  return report;
}
