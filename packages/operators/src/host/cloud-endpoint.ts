import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import type { OperatorContext } from "../types";
import { cloudInfo } from "./cloud-vm";
import { cloudKnownHostsPath } from "./cloud-known-hosts";

/**
 * A cloud instance's SSH endpoint for a play not given vm_wait_ssh's output: its address from the
 * provider, its keys from where vm_wait_ssh pinned them (never a second first contact).
 */
export async function cloudEndpoint(vm: string, ctx: OperatorContext, ex: HostExecutor) {
  const host = ctx.host!;
  const info = await cloudInfo(vm, ctx, host.cloud!);
  if (!info.ssh_host) throw new Error(`VM '${vm}' has no address yet (state ${info.state}); run vm_wait_ssh first`);
  const path = cloudKnownHostsPath(ctx.config.inventoryDir, host.name, vm);
  const r = await ex.run(["cat", "--", path], { timeoutMs: 20_000, signal: ctx.signal });
  const keys = r.stdout.split("\n").filter((l) => /^\S+ (ssh-|ecdsa-)\S+ \S+$/.test(l.trim()));
  if (r.code !== 0 || !keys.length)
    throw new NonRetryableError(`VM '${vm}' on cloud host '${host.name}' has no pinned host keys in ${path} on ${ex.target}: run vm_wait_ssh first`);
  return { ssh_host: info.ssh_host, ssh_port: info.ssh_port ?? 22, ssh_user: host.cloud!.sshUser, host_keys: keys };
}
