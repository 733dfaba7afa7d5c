import { NonRetryableError, UnavailableError } from "@svc/errors";
import type { FenceOptions, HostExecutor } from "@svc/host";
import type { OperatorContext } from "../types";
import type { HostOperatorSettings } from "./deps";

/** VM info as the VM CLI prints it with -o json. */
export interface VmCliInfo {
  name: string;
  state: string;
  image: string | null;
  /** Absent from VM CLIs older than ISO boots. */
  iso?: string | null;
  macs?: string[];
  memory_mb: number | null;
  cpus: number | null;
  ip: string | null;
  ssh_host: string | null;
  ssh_port: number | null;
  ssh_user: string | null;
  /** Forwarded ports (user-mode VMs); absent from VM CLIs older than forwards. */
  forwards?: { proto: string; guest_port: number; host_address: string; host_port: number }[];
  created?: boolean;
  /** The VM was made by another run of the same DAG and adopted (create --adopt-same-dag). */
  adopted?: boolean;
  [k: string]: unknown;
}

/** The VM CLI refused a domain svc did not create (exit 7). */
export class ForeignVmError extends NonRetryableError {}

/** Run `svc-vm <args> -o json` on the host as root (sudo -n in non-root mode); parse its JSON. */
export async function runVmCli<T>(ex: HostExecutor, s: HostOperatorSettings, ctx: OperatorContext, args: string[], timeoutMs = 600_000, fence?: FenceOptions): Promise<T> {
  // A routed try (ctx.host) uses that host's libvirt and directories, never the configured ones.
  const h = ctx.host;
  const global = [
    "--images-dir",
    h ? h.imagesDir : ctx.config.vm.imagesDir,
    "--driver",
    ctx.config.vm.driver,
    "--disks-dir",
    h ? h.disksDir : (s.disksDir ?? ctx.config.vm.disksDir),
    ...(h ? ["--uri", h.libvirtUri] : s.libvirtUri ? ["--uri", s.libvirtUri] : []),
  ];
  const argv = [...s.vmCli, ...args, ...global, "-o", "json"];
  const r = await ex.run(argv, { root: true, timeoutMs, signal: ctx.signal, onStderr: (l) => ctx.log(l, "stderr"), ...(fence ? { fence } : {}) });
  let body: unknown;
  try {
    body = JSON.parse(r.stdout);
  } catch {
    body = undefined;
  }
  if (r.code === 0 && body !== undefined) return body as T;
  if (r.code === 127 || (body === undefined && /command not found|: not found|No such file or directory/.test(r.stderr))) {
    throw new NonRetryableError(`VM CLI '${s.vmCli.join(" ")}' not found on ${ex.target}: install it there or set SVC_VM_CLI to its path`);
  }
  const err = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const message = err?.message ?? (r.stderr.trim().split("\n").pop() || `exit ${r.code}`);
  // Exit codes of svc-vm: 2 invalid input, 3 not found, 4 exists, 5 hypervisor down, 6 permission, 7 not svc's VM.
  if (r.code === 5) throw new UnavailableError(message);
  if (r.code === 7) throw new ForeignVmError(message);
  if ([2, 3, 4, 6].includes(r.code)) throw new NonRetryableError(message);
  throw new Error(`svc-vm ${args.slice(0, 2).join(" ")} failed on ${ex.target}: ${message}`);
}

/** The JSON object vm_create / vm_info expose as `ti.<task>.output`. */
export function vmOutput(v: VmCliInfo): Record<string, unknown> {
  return {
    name: v.name,
    state: v.state,
    ssh_host: v.ssh_host,
    ssh_port: v.ssh_port,
    ssh_user: v.ssh_user,
    ip: v.ip,
    image: v.image,
    iso: v.iso ?? null,
    macs: v.macs ?? [],
    forwards: v.forwards ?? [],
    memory_mb: v.memory_mb,
    cpus: v.cpus,
    ...(v.created !== undefined ? { created: v.created } : {}),
    ...(v.adopted === true ? { adopted: true } : {}),
  };
}
