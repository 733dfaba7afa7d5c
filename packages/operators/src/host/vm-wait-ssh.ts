import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import { pinVmHostKeys, waitForHostKeys, type PinResult } from "@svc/vm";
import type { Operator, OperatorContext } from "../types";
import { sleep } from "./abortable-sleep";
import { ansibleStrategyFor } from "./ansible-strategy";
import { cloudWaitSsh } from "./cloud-wait-ssh";
import { defaultHostExecutor, executorFor, hostOperatorSettings, type HostOperatorDeps } from "./deps";
import { runVmCli, type VmCliInfo } from "./vm-cli";
import { args, type Args } from "./vm-wait-ssh-args";

/** Seconds one scanning command goes on before the VM's state is read again (a read starts a VM CLI). */
const ROUND_S = 20;

/**
 * Pin the keys the new VM presented in its own known_hosts (see pinVmHostKeys in @svc/vm, which
 * `svc-vm create vm --wait` uses too), unless the scan's own command did. Skipped when the VM has
 * no directory there (another VM backend).
 */
async function pinKeys(ex: HostExecutor, disksDir: string, vm: string, keys: string[], done: PinResult | null, ctx: OperatorContext): Promise<void> {
  const r = done ?? (await pinVmHostKeys(ex, disksDir, vm, keys, { root: true, signal: ctx.signal }));
  if (r.status === "pinned") ctx.log(`host keys pinned in ${r.path}`, "system");
  else if (r.status === "failed") ctx.log(`could not pin the host keys in ${r.path} (exit ${r.exitCode}); svc-vm ssh will ask to trust them`, "stderr");
}

/** Wait until a VM's SSH answers; output ssh_host, ssh_port and the host keys it presented. */
export function createVmWaitSshOperator(deps: HostOperatorDeps = {}): Operator<Args> {
  const exFor = deps.executor ?? defaultHostExecutor;
  return {
    name: "vm_wait_ssh",
    description:
      "Wait until SSH answers on a VM's endpoint (timeout_s; a cloud instance's address, or through its host's bastion, its keys trusted on first use); output name, ssh_host, ssh_port, host_keys",
    args,
    hostScoped: true,
    async run(a, ctx) {
      if (ctx.host?.cloud) return cloudWaitSsh(a, ctx, ctx.host, exFor(ctx));
      // The scan runs on the VM's host: its forwards are on that host's 127.0.0.1.
      const ex = executorFor(ctx, exFor);
      // The VM's plays run on this host with the strategy its probe picks (once per host and
      // process): probed now, while the VM boots, so its first play does not wait for the probe.
      if (!ctx.host?.jump) void ansibleStrategyFor(ex, ctx.config.ansibleStrategy);
      const s = hostOperatorSettings(ctx.config.vm);
      const deadline = Date.now() + a.timeout_s * 1000;
      let info: VmCliInfo | undefined;
      let rounds = 0;
      // Each round reads the VM's state and endpoint (a VM that stopped fails the wait), then scans
      // the endpoint in a loop on the host for up to ROUND_S seconds: one command, not one a scan.
      while (Date.now() < deadline) {
        rounds++;
        info = await runVmCli<VmCliInfo>(ex, s, ctx, ["info", "vm", a.name]);
        if (info.state === "shut off" || info.state === "crashed") throw new NonRetryableError(`VM '${a.name}' is ${info.state}; it will not answer SSH`);
        ctx.log(`waiting for SSH on ${info.ssh_host ?? "?"}:${info.ssh_port ?? "?"} (state ${info.state})`, "system");
        const left = (deadline - Date.now()) / 1000;
        if (info.ssh_host && info.ssh_port && left > 0) {
          // The scan pins what it finds in the same command (as root, as pinning is), not in one more.
          const pin = { disksDir: ctx.host ? ctx.host.disksDir : (s.disksDir ?? ctx.config.vm.disksDir), vm: a.name };
          const { keys, pin: pinned } = await waitForHostKeys(ex, info.ssh_host, info.ssh_port, {
            forS: Math.min(ROUND_S, left),
            pauseS: a.interval_s,
            signal: ctx.signal,
            root: true,
            pin,
          });
          if (keys.length > 0) {
            ctx.log(`SSH answers on ${info.ssh_host}:${info.ssh_port} (round ${rounds})`, "system");
            await pinKeys(ex, pin.disksDir, a.name, keys, pinned, ctx);
            return { name: a.name, ssh_host: info.ssh_host, ssh_port: info.ssh_port, ssh_user: info.ssh_user, host_keys: keys };
          }
        }
        // Between rounds (or while the VM has no endpoint yet): a pause, never a busy loop.
        await sleep(Math.min(a.interval_s * 1000, Math.max(0, deadline - Date.now())), ctx.signal);
      }
      const where = info?.ssh_host ? `${info.ssh_host}:${info.ssh_port}` : "(no endpoint yet)";
      throw new Error(`VM '${a.name}' did not answer SSH on ${where} within ${a.timeout_s} s (state ${info?.state ?? "unknown"}); check the VM's console log`);
    },
  };
}
