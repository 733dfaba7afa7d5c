import { runCli as runVmCli } from "@svc/vm";
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
  const argv = withFlags(args, hostFlags(h));
  if (h.name === LOCAL_HOST) {
    let stdout = "";
    let stderr = "";
    const code = await runVmCli(argv, {
      out: (t) => ((stdout += `${t}\n`), o.onStdout?.(t)),
      err: (t) => ((stderr += `${t}\n`), o.onStderr?.(t)),
      isTTY: o.isTTY ?? false,
      ask: o.ask ?? (async () => ""),
      env: o.env,
    });
    return { code, stdout, stderr };
  }
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
