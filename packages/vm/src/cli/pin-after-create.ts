import { existsSync } from "node:fs";
import { LocalExecutor } from "@svc/host";
import { pinVmHostKeys, scanHostKeys, vmKnownHostsPath } from "../host-keys";
import type { VmSettings } from "../settings";
import type { CreateResult } from "../types";
import type { CliIo } from "./io";

/**
 * After `create vm --wait`: pin the host keys the VM presents in its own known_hosts, as the
 * workflows' vm_wait_ssh does, so `svc-vm ssh vm NAME` trusts it without --trust-on-first-use.
 * Only for a VM this call created, or one that has no pinned keys yet: keys already pinned are
 * never replaced (a changed key must keep failing). A failure is a warning: the VM is up.
 */
export async function pinAfterCreate(r: CreateResult, settings: VmSettings, io: CliIo, deadline: number): Promise<void> {
  const v = r.info;
  if (!v.ssh_host || !v.ssh_port) return;
  if (!r.created && existsSync(vmKnownHostsPath(settings.disksDir, v.name))) return;
  const ex = new LocalExecutor({ env: io.env, inheritAll: true });
  // sshd answered, but a guest under TCG may still be slow to finish the key exchange.
  let keys: string[] = [];
  for (let i = 0; keys.length === 0 && (i === 0 || Date.now() < deadline); i++) {
    if (i > 0) await new Promise((res) => setTimeout(res, 2000));
    keys = await scanHostKeys(ex, v.ssh_host, v.ssh_port);
  }
  if (keys.length === 0) {
    io.err(`warning: VM ${v.name} answered SSH but ssh-keyscan read no host key; svc-vm ssh will need --trust-on-first-use`);
    return;
  }
  const pin = await pinVmHostKeys(ex, settings.disksDir, v.name, keys);
  if (pin.status === "pinned") io.err(`host keys pinned in ${pin.path}`);
  else if (pin.status === "failed") io.err(`warning: could not pin the host keys in ${pin.path} (exit ${pin.exitCode}); svc-vm ssh will need --trust-on-first-use`);
}
