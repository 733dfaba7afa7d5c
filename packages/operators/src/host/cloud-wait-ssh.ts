import { posix } from "node:path";
import { readFile } from "node:fs/promises";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import type { CloudTarget } from "@svc/hosts";
import { waitForHostKeys } from "@svc/vm";
import type { OperatorContext, OperatorHost } from "../types";
import { sleep } from "./abortable-sleep";
import { jumpProxyArgv, proxyCommandText, type Jump } from "./ansible-jump";
import { cloudKnownHostsPath } from "./cloud-known-hosts";
import { cloudInfo } from "./cloud-vm";
import { writeHostFile } from "./remote-files";

// A cloud instance's SSH: on its address (public, else private) from the configured host, or
// through the cloud host's bastion. Its host keys cannot be known beforehand where the provider
// prints none to a console svc can read: they are trusted on first use, recorded, and said in the
// log; every later contact is checked against them.

const KEY_LINE = /^\S+ (ssh-|ecdsa-)\S+ \S+$/;
const READY = "svc-ssh: ready";

// $1 seconds to go on, $2 pause, $3 the known_hosts to record the keys in, then ssh's argv. Logs in
// (`true`) until that works: the keys are recorded at the first answer (accept-new: never replaced),
// the login proves cloud-init put the key in place. Prints the recorded keys, and READY on a login.
const FIRST_CONTACT = `end=$(($(date +%s) + $1)); pause=$2; kh=$3; shift 3
while :; do
  if "$@" true < /dev/null > /dev/null 2>&1; then ok=1; break; fi
  [ "$(date +%s)" -lt "$end" ] || break
  sleep "$pause"
done
[ -f "$kh" ] && cat -- "$kh"; [ -n "$ok" ] && echo "${READY}"; exit 0`;

/** ssh's argv to a target through the bastion: its own key, the target's keys recorded on first use, the bastion's pinned. */
function throughBastion(jump: Jump, jumpKh: string, kh: string, keyPath: string, user: string, address: string): string[] {
  return [
    "ssh",
    "-F",
    "/dev/null",
    "-i",
    keyPath,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    `UserKnownHostsFile=${kh}`,
    "-o",
    "StrictHostKeyChecking=accept-new",
    "-o",
    "HashKnownHosts=no",
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=10",
    "-o",
    `ProxyCommand=${proxyCommandText(jumpProxyArgv(jump, jumpKh))}`,
    "-p",
    "22",
    "-l",
    user,
    "--",
    address,
  ];
}

/** The keys of the instance, first contact through the bastion; [] while it does not let svc in. */
async function firstContactThroughBastion(ex: HostExecutor, jump: Jump, dir: string, cloud: CloudTarget, address: string, forS: number, ctx: OperatorContext) {
  const jumpKh = `${dir}/jump_known_hosts`;
  await writeHostFile(ex, jumpKh, await readFile(jump.knownHostsPath, "utf8"), ctx);
  const kh = `${dir}/first_contact`;
  const argv = ["sh", "-c", FIRST_CONTACT, "sh", String(Math.max(1, Math.ceil(forS))), "1", kh, ...throughBastion(jump, jumpKh, kh, cloud.keyPath, cloud.sshUser, address)];
  const r = await ex.run(argv, { timeoutMs: (forS + 60) * 1000, signal: ctx.signal });
  const lines = r.stdout.split("\n").map((l) => l.trim());
  return lines.includes(READY) ? lines.filter((l) => KEY_LINE.test(l)) : [];
}

/** Wait for a cloud instance's SSH; pin its keys (trust on first use, said in the log). vm_wait_ssh's output. */
export async function cloudWaitSsh(
  a: { name: string; timeout_s: number; interval_s: number },
  ctx: OperatorContext,
  host: OperatorHost,
  ex: HostExecutor,
): Promise<Record<string, unknown>> {
  const cloud = host.cloud!;
  const deadline = Date.now() + a.timeout_s * 1000;
  const pinPath = cloudKnownHostsPath(ctx.config.inventoryDir, host.name, a.name);
  const dir = posix.dirname(pinPath);
  const mk = await ex.run(["mkdir", "-p", "-m", "700", "--", dir], { timeoutMs: 20_000, signal: ctx.signal });
  if (mk.code !== 0) throw new Error(`cannot make ${dir} on ${ex.target}: ${mk.stderr.trim()}`);
  const via = host.jump ? ` through the bastion ${host.jump.user}@${host.jump.address}:${host.jump.port}` : "";
  let state = "unknown";
  let address: string | null = null;
  while (Date.now() < deadline) {
    const info = await cloudInfo(a.name, ctx, cloud);
    state = info.state;
    if (info.state === "shut off" || info.state === "terminated") throw new NonRetryableError(`VM '${a.name}' is ${info.state}; it will not answer SSH`);
    address = info.ssh_host;
    const left = (deadline - Date.now()) / 1000;
    if (address && left > 0) {
      ctx.log(`waiting for SSH on ${address}:22${via} (state ${info.state})`, "system");
      const forS = Math.min(20, left);
      const keys = host.jump
        ? await firstContactThroughBastion(ex, host.jump, dir, cloud, address, forS, ctx)
        : (await waitForHostKeys(ex, address, 22, { forS, pauseS: a.interval_s, signal: ctx.signal })).keys;
      if (keys.length) {
        await writeHostFile(ex, pinPath, `${keys.join("\n")}\n`, ctx);
        ctx.log(
          `SSH answers on ${address}:22${via}. Host keys trusted on first use (${cloud.provider} prints none svc can read beforehand), pinned in ${pinPath}: ${keys.map((k) => k.split(" ").slice(1, 2)[0]).join(", ")}`,
          "system",
        );
        return { name: a.name, ssh_host: address, ssh_port: 22, ssh_user: cloud.sshUser, host_keys: keys, host_key_trust: "first-use", known_hosts: pinPath };
      }
    }
    await sleep(Math.min(Math.max(a.interval_s, 1) * 1000, Math.max(0, deadline - Date.now())), ctx.signal);
  }
  throw new Error(`VM '${a.name}' did not answer SSH on ${address ?? "(no address yet)"}:22${via} within ${a.timeout_s} s (state ${state})`);
}
