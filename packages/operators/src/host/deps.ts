import { LocalExecutor, SshExecutor, fenceKey, sharedSshPool, sshOptionsFromConfig, type FenceOptions, type HostExecutor } from "@svc/host";
import type { VmSettingsConfig } from "@svc/config";
import type { OperatorContext } from "../types";

/** The VM settings the host operators use (parsed by @svc/config, as the services and the VM CLI parse them). */
export interface HostOperatorSettings {
  /** The VM CLI on the host, as argv words (SVC_VM_CLI: a path, or a JSON array; default svc-vm). */
  vmCli: string[];
  /** Passed to the VM CLI as --disks-dir when set (SVC_VM_DISKS_DIR). */
  disksDir?: string;
  /** Passed to the VM CLI as --uri when set (SVC_LIBVIRT_URI). */
  libvirtUri?: string;
  /** Public key file on the host injected into new VMs (SVC_VM_SSH_PUBKEY). */
  sshPubkey?: string;
  /** Private key file on the host that ansible uses to reach VMs (SVC_VM_SSH_PRIVKEY). */
  sshPrivkey?: string;
}

/** What host operators need from outside; everything has a production default. */
export interface HostOperatorDeps {
  /** The executor that reaches the host (default: SSH per ctx.config.ssh, shared pool). */
  executor?: (ctx: OperatorContext) => HostExecutor;
}

/** The host operators' settings from the parsed VM section (SvcConfig.vm; ctx.config.vm in a try). */
export function hostOperatorSettings(c: VmSettingsConfig): HostOperatorSettings {
  return { vmCli: [...c.cli], disksDir: c.explicit.disksDir, libvirtUri: c.explicit.libvirtUri, sshPubkey: c.sshPubkey, sshPrivkey: c.sshPrivkey };
}

/** The production executor: SSH to the configured host; `local` when SVC_SSH_HOST is "local". */
export function defaultHostExecutor(ctx: OperatorContext): HostExecutor {
  if (ctx.config.ssh.host === "local") return new LocalExecutor({ env: ctx.config.childEnv });
  return new SshExecutor(sshOptionsFromConfig(ctx.config), sharedSshPool());
}

/**
 * The executor of a try: the host it was routed to (ctx.host, several-host installs), whose
 * command runs are logged with the host's name; else the configured one, as before.
 */
export function executorFor(ctx: OperatorContext, exFor: (ctx: OperatorContext) => HostExecutor): HostExecutor {
  if (!ctx.host) return exFor(ctx);
  // A cloud host has no executor: its SSH waits and plays run on the configured host, as a jump host's plays do.
  if (!ctx.host.executor) return exFor(ctx);
  ctx.log(`on host ${ctx.host.name} (${ctx.host.executor.target}, libvirt ${ctx.host.libvirtUri})`, "system");
  return ctx.host.executor;
}

/**
 * The host of the inventory a try acted on, as its output's `host`: the host it was routed to,
 * else `local` (the configured host; @svc/hosts' LOCAL_HOST). A DAG passes it to its later steps
 * (`host: "{{ params.host or ti.<task>.output.host }}"`) to keep them on that host.
 */
export function actedOnHost(ctx: OperatorContext): string {
  return ctx.host?.name ?? "local";
}

/** Pass a command's output lines into the task log. */
export function logLines(ctx: OperatorContext): { onStdout: (l: string) => void; onStderr: (l: string) => void } {
  return { onStdout: (l) => ctx.log(l, "stdout"), onStderr: (l) => ctx.log(l, "stderr") };
}

/**
 * The host-side fence of an effect command of this try (RunOptions.fence): keyed by the task and
 * `step` (when one try runs several effect commands), so a newer try refuses a stale one and a
 * try that finds an older one's command still running adopts its result instead of running it again.
 */
export function effectFence(ctx: OperatorContext, step = ""): FenceOptions {
  return { stateDir: ctx.config.hostStateDir, key: fenceKey(ctx.dagId, ctx.runId, ctx.taskId, step), tryNumber: ctx.tryNumber };
}
