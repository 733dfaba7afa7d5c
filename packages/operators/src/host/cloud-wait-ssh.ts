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
import { checkOffered, CONSOLE_KEYS_WAIT_MS, hostKeyMismatch, pinnedLines, readConsoleKeys, type ExpectedKeys } from "./cloud-console-keys";
import { cloudInfo } from "./cloud-vm";
import { writeHostFile } from "./remote-files";
import { sshArgv } from "./ssh-argv";

// A cloud instance's SSH: on its address (public, else private) from the configured host, or
// through the cloud host's bastion. Its host keys are pinned before the first contact where the
// provider's console printed them (cloud-init's blocks, read by the driver: cloud-console-keys.ts),
// and a server offering another key is refused. Where they cannot be known beforehand they are
// trusted on first use, recorded, and said in the log; every later contact is checked against them.

const KEY_LINE = /^\S+ (ssh-|ecdsa-)\S+ \S+$/;
const READY = "svc-ssh: ready";
const MISMATCH = "svc-ssh: host key verification failed";

// $1 seconds to go on, $2 pause, $3 the known_hosts to record the keys in, then ssh's argv. Logs in
// (`true`) until that works: the keys are recorded at the first answer (accept-new: never replaced;
// or checked against the keys pinned there beforehand), the login proves cloud-init put the key in
// place. Prints the recorded keys, and READY on a login; on a key ssh refused, MISMATCH and ssh's lines.
const FIRST_CONTACT = `end=$(($(date +%s) + $1)); pause=$2; kh=$3; shift 3
while :; do
  if err=$("$@" true 2>&1 < /dev/null > /dev/null); then ok=1; break; fi
  case "$err" in *"Host key verification failed"*) echo "${MISMATCH}"; printf '%s\\n' "$err" | grep -v '^@' | tail -n 4; exit 0 ;; esac
  [ "$(date +%s)" -lt "$end" ] || break
  sleep "$pause"
done
[ -f "$kh" ] && cat -- "$kh"; [ -n "$ok" ] && echo "${READY}"; exit 0`;

/** ssh's argv to a target through the bastion: its own key, the target's keys recorded on first use (or pinned: `strict`), the bastion's pinned. */
function throughBastion(jump: Jump, jumpKh: string, kh: string, keyPath: string, user: string, address: string, strict: boolean): string[] {
  return sshArgv(
    { keyPath, port: 22, user, address },
    {
      UserKnownHostsFile: kh,
      StrictHostKeyChecking: strict ? "yes" : "accept-new",
      HashKnownHosts: "no",
      BatchMode: "yes",
      ConnectTimeout: "10",
      ProxyCommand: proxyCommandText(jumpProxyArgv(jump, jumpKh)),
    },
  );
}

/** The keys of the instance, first contact through the bastion ([] while it does not let svc in); `mismatch`: ssh refused the key it offered. */
async function firstContactThroughBastion(
  ex: HostExecutor,
  jump: Jump,
  kh: string,
  cloud: CloudTarget,
  address: string,
  forS: number,
  ctx: OperatorContext,
  pinned: string[] | null,
) {
  const jumpKh = `${posix.dirname(kh)}/jump_known_hosts`;
  await writeHostFile(ex, jumpKh, await readFile(jump.knownHostsPath, "utf8"), ctx);
  // This VM's own file, written anew: the console's keys to check against, or empty for first use.
  await writeHostFile(ex, kh, pinned ? `${pinned.join("\n")}\n` : "", ctx);
  const ssh = throughBastion(jump, jumpKh, kh, cloud.keyPath, cloud.sshUser, address, pinned !== null);
  const argv = ["sh", "-c", FIRST_CONTACT, "sh", String(Math.max(1, Math.ceil(forS))), "1", kh, ...ssh];
  const r = await ex.run(argv, { timeoutMs: (forS + 60) * 1000, signal: ctx.signal });
  const lines = r.stdout.split("\n").map((l) => l.trim());
  const at = lines.indexOf(MISMATCH);
  if (at >= 0)
    return {
      keys: [],
      mismatch: lines
        .slice(at + 1)
        .filter(Boolean)
        .join(" "),
    };
  return { keys: lines.includes(READY) ? lines.filter((l) => KEY_LINE.test(l)) : [], mismatch: null };
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
  const driver = await cloud.driver();
  let expected: ExpectedKeys | undefined;
  let state = "unknown";
  let address: string | null = null;
  while (Date.now() < deadline) {
    const info = await cloudInfo(a.name, ctx, cloud);
    state = info.state;
    if (info.state === "shut off" || info.state === "terminated") throw new NonRetryableError(`VM '${a.name}' is ${info.state}; it will not answer SSH`);
    address = info.ssh_host;
    // Once, before the first contact: what the console printed (half the wait at most, the rest for SSH).
    if (address && expected === undefined) expected = await readConsoleKeys(driver, a.name, Math.min(CONSOLE_KEYS_WAIT_MS, (deadline - Date.now()) / 2), ctx);
    const left = (deadline - Date.now()) / 1000;
    if (address && left > 0) {
      ctx.log(`waiting for SSH on ${address}:22${via} (state ${info.state})`, "system");
      const forS = Math.min(20, left);
      const pinned = expected?.keys.length ? pinnedLines(address, expected.keys) : null;
      let keys: string[];
      if (host.jump) {
        const r = await firstContactThroughBastion(ex, host.jump, `${pinPath}.first_contact`, cloud, address, forS, ctx, pinned);
        if (r.mismatch !== null)
          throw hostKeyMismatch(a.name, address, `ssh refused the key it offered (${r.mismatch})`, expected ?? { keys: [], fingerprints: [], source: "its first contact" });
        keys = r.keys;
      } else keys = (await waitForHostKeys(ex, address, 22, { forS, pauseS: a.interval_s, signal: ctx.signal })).keys;
      if (keys.length) {
        if (expected) checkOffered(a.name, address, keys, expected);
        // Pinned: the console's keys where it printed them (checked above), else the ones first offered.
        const pin = pinned ?? keys;
        await writeHostFile(ex, pinPath, `${pin.join("\n")}\n`, ctx);
        const trust = expected?.keys.length ? "console" : expected ? "console-fingerprint" : "first-use";
        const how =
          trust === "console"
            ? `Host keys as ${expected!.source} printed them`
            : trust === "console-fingerprint"
              ? `Host keys checked against the fingerprints ${expected!.source} printed`
              : `Host keys trusted on first use (${driver.consoleHostKeys ? `none in the ${cloud.provider} console` : `${cloud.provider} prints none svc can read beforehand`})`;
        ctx.log(`SSH answers on ${address}:22${via}. ${how}, pinned in ${pinPath}: ${pin.map((k) => k.split(" ").slice(1, 2)[0]).join(", ")}`, "system");
        return { name: a.name, ssh_host: address, ssh_port: 22, ssh_user: cloud.sshUser, host_keys: pin, host_key_trust: trust, known_hosts: pinPath };
      }
    }
    await sleep(Math.min(Math.max(a.interval_s, 1) * 1000, Math.max(0, deadline - Date.now())), ctx.signal);
  }
  throw new Error(`VM '${a.name}' did not answer SSH on ${address ?? "(no address yet)"}:22${via} within ${a.timeout_s} s (state ${state})`);
}
