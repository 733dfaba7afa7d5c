import { cloudDriverFor, runCli as runVmCli, type CloudDriverOptions, type CloudSecrets } from "@svc/vm";
import { hostExecutor } from "../connect";
import { LOCAL_HOST } from "../names";
import type { HostRecord } from "../types";

/** What svc-vm answered on one host; `unreachable` is set (code 5) when the host did not answer at all. */
export interface HostRun {
  code: number;
  stdout: string;
  stderr: string;
  unreachable?: string;
}

/** How to run svc-vm on a host. */
export interface RunOnHostOptions {
  /** svc-vm on the other hosts as argv (SVC_VM_CLI). */
  vmCli: readonly string[];
  env: Record<string, string | undefined>;
  timeoutMs: number;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  /** For `local` (in this process): a prompt of svc-vm goes to this terminal. */
  isTTY?: boolean;
  ask?: (question: string) => Promise<string>;
  /** The secrets file's keys, for cloud hosts (their drivers run in this process). */
  secrets?: CloudSecrets;
  /** Settings cloud drivers take (AZURE_AUTHORITY_HOST). */
  cloudOptions?: CloudDriverOptions;
}

/** The host's libvirt URI and directories, from its row of the inventory. */
const hostFlags = (h: HostRecord) => ["--uri", h.libvirt_uri, "--images-dir", h.images_dir, "--disks-dir", h.disks_dir];

/** Flags go before a `--` (ssh vm NAME -- CMD): after it they would be the guest command's. */
function withFlags(args: readonly string[], flags: string[]): string[] {
  const end = args.indexOf("--");
  return end < 0 ? [...args, ...flags] : [...args.slice(0, end), ...flags, ...args.slice(end)];
}

/**
 * Run `svc-vm ARGS` on host `h` with its libvirt URI and directories: in this process for `local`
 * (as svc-vm on this machine would), over SSH with the host's pinned key (as root, sudo -n for a
 * non-root login) for every other host. Never throws for the host's sake: a host that cannot be
 * reached comes back with `unreachable` and code 5, svc-vm's code for an unavailable hypervisor.
 */
export async function runOnHost(h: HostRecord, args: readonly string[], o: RunOnHostOptions): Promise<HostRun> {
  if (h.provider !== "libvirt") return runOnCloud(h, args, o);
  const argv = withFlags(args, hostFlags(h));
  if (h.name === LOCAL_HOST) return inProcess(argv, o);

  let ex;
  try {
    ex = hostExecutor(h);
  } catch (e) {
    return { code: 5, stdout: "", stderr: "", unreachable: (e as Error).message };
  }
  try {
    const r = await ex.run([...o.vmCli, ...argv], { root: true, timeoutMs: o.timeoutMs, onStdout: o.onStdout, onStderr: o.onStderr });
    if (r.code === 127 || (r.code !== 0 && r.stdout === "" && /command not found|: not found/.test(r.stderr))) {
      return { ...r, stderr: `svc-vm ('${o.vmCli.join(" ")}') is not installed on host '${h.name}': install it there or set SVC_VM_CLI\n${r.stderr}` };
    }
    return r;
  } catch (e) {
    return { code: 5, stdout: "", stderr: "", unreachable: (e as Error).message };
  } finally {
    await ex.close();
  }
}

/** svc-vm in this process, with a driver given or this host's own. */
async function inProcess(argv: readonly string[], o: RunOnHostOptions, driver?: Parameters<typeof runVmCli>[2]): Promise<HostRun> {
  let stdout = "";
  let stderr = "";
  const code = await runVmCli(
    argv,
    {
      out: (t) => ((stdout += `${t}\n`), o.onStdout?.(t)),
      err: (t) => ((stderr += `${t}\n`), o.onStderr?.(t)),
      isTTY: o.isTTY ?? false,
      ask: o.ask ?? (async () => ""),
      env: o.env,
    },
    driver,
  );
  return { code, stdout, stderr };
}

/**
 * svc-vm on a cloud host: in this process, through the provider's API (cloudDriverFor, with the secrets).
 * A driver that cannot be made (a key missing) is the host not answering, with why (code 5).
 */
async function runOnCloud(h: HostRecord, args: readonly string[], o: RunOnHostOptions): Promise<HostRun> {
  let driver;
  try {
    driver = await cloudDriverFor(h, o.secrets ?? {}, o.cloudOptions);
  } catch (e) {
    return { code: 5, stdout: "", stderr: "", unreachable: (e as Error).message };
  }
  return inProcess(args, o, { driver });
}

/** The error a failed run reports: svc-vm's JSON error, else its last stderr line. */
export function failureOf(r: HostRun): string {
  if (r.unreachable) return `did not answer: ${r.unreachable}`;
  try {
    const body = JSON.parse(r.stdout) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {
    // not JSON: the message is on stderr
  }
  const last = r.stderr.trim().split("\n").pop() ?? "";
  return last.replace(/^svc-vm: error: /, "") || `exit ${r.code}`;
}
