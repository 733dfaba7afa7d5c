import { z } from "zod";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import { pinVmHostKeys, scanHostKeys } from "@svc/vm";
import type { Operator, OperatorContext } from "../types";
import { sleep } from "./abortable-sleep";
import { defaultHostExecutor, executorFor, hostOperatorSettings, type HostOperatorDeps } from "./deps";
import { inventoryHost, vmName } from "./schemas";
import { runVmCli, type VmCliInfo } from "./vm-cli";

const args = z.object({
  name: vmName,
  timeout_s: z.coerce.number().min(1).max(3600).default(300),
  interval_s: z.coerce.number().min(0.2).max(60).default(1),
  /** The host of the inventory the VM is on (default: the one whose last probe lists it, else local). */
  host: inventoryHost.nullish(),
});
type Args = z.infer<typeof args>;

/** Probes between two reads of the VM's state once its endpoint is known (a read starts a VM CLI). */
const STATE_EVERY = 10;
/** Every this many probes, the scan waits 10 s for an answer instead of 3. */
const PATIENT_EVERY = 4;

/**
 * Pin the keys the new VM presented in its own known_hosts (see pinVmHostKeys in @svc/vm, which
 * `svc-vm create vm --wait` uses too). Skipped when the VM has no directory there (another VM backend).
 */
async function pinKeys(ex: HostExecutor, disksDir: string, vm: string, keys: string[], ctx: OperatorContext): Promise<void> {
  const r = await pinVmHostKeys(ex, disksDir, vm, keys, { root: true, signal: ctx.signal });
  if (r.status === "pinned") ctx.log(`host keys pinned in ${r.path}`, "system");
  else if (r.status === "failed") ctx.log(`could not pin the host keys in ${r.path} (exit ${r.exitCode}); svc-vm ssh will ask to trust them`, "stderr");
}

/** Wait until a VM's SSH answers; output ssh_host, ssh_port and the host keys it presented. */
export function createVmWaitSshOperator(deps: HostOperatorDeps = {}): Operator<Args> {
  const exFor = deps.executor ?? defaultHostExecutor;
  return {
    name: "vm_wait_ssh",
    description: "Wait until SSH answers on a VM's endpoint (timeout_s); output name, ssh_host, ssh_port, host_keys",
    args,
    hostScoped: true,
    async run(a, ctx) {
      // The scan runs on the VM's host: its forwards are on that host's 127.0.0.1.
      const ex = executorFor(ctx, exFor);
      const s = hostOperatorSettings(deps.env);
      const deadline = Date.now() + a.timeout_s * 1000;
      let info: VmCliInfo | undefined;
      let tries = 0;
      // The VM's state and endpoint are read once and then every STATE_EVERY probes (a VM that
      // stopped fails the wait there); in between, a probe is only a scan of the endpoint.
      while (Date.now() < deadline) {
        tries++;
        if (!info?.ssh_host || !info.ssh_port || tries % STATE_EVERY === 0) {
          info = await runVmCli<VmCliInfo>(ex, s, ctx, ["info", "vm", a.name]);
          if (info.state === "shut off" || info.state === "crashed") throw new NonRetryableError(`VM '${a.name}' is ${info.state}; it will not answer SSH`);
        }
        if (info.ssh_host && info.ssh_port) {
          // Until the guest's network is up its user-mode forward accepts and then says nothing, so a
          // scan waits out its timeout: 3 s (not 10) keeps that from hiding an sshd that just started;
          // every PATIENT_EVERY-th scan waits longer, for a guest too loaded to answer within 3 s.
          const timeoutS = tries % PATIENT_EVERY === 0 ? 10 : 3;
          const keys = await scanHostKeys(ex, info.ssh_host, info.ssh_port, { signal: ctx.signal, timeoutS });
          if (keys.length > 0) {
            ctx.log(`SSH answers on ${info.ssh_host}:${info.ssh_port} after ${tries} probe(s)`, "system");
            await pinKeys(ex, ctx.host ? ctx.host.disksDir : (s.disksDir ?? ctx.config.vm.disksDir), a.name, keys, ctx);
            return { name: a.name, ssh_host: info.ssh_host, ssh_port: info.ssh_port, ssh_user: info.ssh_user, host_keys: keys };
          }
        }
        if (tries === 1 || tries % STATE_EVERY === 0) ctx.log(`waiting for SSH on ${info.ssh_host ?? "?"}:${info.ssh_port ?? "?"} (state ${info.state})`, "system");
        await sleep(Math.min(a.interval_s * 1000, Math.max(0, deadline - Date.now())), ctx.signal);
      }
      const where = info?.ssh_host ? `${info.ssh_host}:${info.ssh_port}` : "(no endpoint yet)";
      throw new Error(`VM '${a.name}' did not answer SSH on ${where} within ${a.timeout_s} s (state ${info?.state ?? "unknown"}); check the VM's console log`);
    },
  };
}
