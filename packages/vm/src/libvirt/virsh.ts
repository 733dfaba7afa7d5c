import type { HostExecutor, RunResult } from "@svc/host";
import { LibvirtUnavailableError, VmNotFoundError, VmPermissionError } from "../errors";
import { libvirtDeniedAdvice } from "../permission-advice";

const DOWN = /failed to connect to the hypervisor|failed to connect socket|libvirt-sock|connection refused|cannot connect to daemon/i;
const DENIED = /authentication unavailable|permission denied|access denied|polkit|authentication failed/i;
const NOT_FOUND = /domain not found|failed to get domain|no domain with matching name/i;

/** Runs virsh (and friends) by argv through a HostExecutor and turns their errors into typed ones. */
export class Virsh {
  /** `dataDirs`: the images and disks directories, named when qemu is denied access to them. */
  constructor(
    private readonly ex: HostExecutor,
    readonly uri: string,
    private readonly dataDirs: string[] = [],
  ) {}

  /** `virsh --connect URI <args>`; returns stdout, throws a typed error on failure. */
  async run(args: string[], opts: { domain?: string; signal?: AbortSignal } = {}): Promise<string> {
    const r = await this.ex.run(["virsh", "--connect", this.uri, ...args], { timeoutMs: 120_000, signal: opts.signal });
    if (r.code === 0) return r.stdout;
    throw this.toError(r, args[0] ?? "", opts.domain);
  }

  /** Like run, but returns the failed result instead of throwing (for expected failures). */
  async tryRun(args: string[]): Promise<RunResult> {
    return this.ex.run(["virsh", "--connect", this.uri, ...args], { timeoutMs: 120_000 });
  }

  /** Map a failed virsh run to a typed error with a one-line message. */
  toError(r: RunResult, verb: string, domain?: string): Error {
    const msg = lastError(r.stderr || r.stdout);
    // A non-root caller on qemu:///system is sent to polkit over the system bus; whatever
    // that says, the fix is the same: root (or a libvirt group member on a polkit host).
    const nonRoot = process.getuid?.() !== 0;
    if (DENIED.test(msg) || (nonRoot && /system bus|polkit/i.test(msg))) {
      return new VmPermissionError(libvirtDeniedAdvice(this.uri, msg, this.dataDirs));
    }
    if (DOWN.test(msg)) {
      return new LibvirtUnavailableError(`libvirt is not reachable at ${this.uri} (${msg}); start it: systemctl start libvirtd, or without systemd: virtlogd -d && libvirtd -d`);
    }
    if (domain && NOT_FOUND.test(msg)) return new VmNotFoundError(domain);
    return new Error(`virsh ${verb} failed: ${msg}`);
  }
}

/** The most useful line of a tool's error output, on one line. */
export function lastError(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const err = lines.filter((l) => /^error:/i.test(l));
  const pick = err.length ? err.map((l) => l.replace(/^error:\s*/i, "")).join(": ") : (lines[lines.length - 1] ?? "no output");
  return pick.length > 400 ? `${pick.slice(0, 400)}...` : pick;
}
