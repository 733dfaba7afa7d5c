import { z } from "zod";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import type { Operator, OperatorContext } from "../types";
import { actedOnHost, defaultHostExecutor, executorFor, hostOperatorSettings, type HostOperatorDeps } from "./deps";
import { hostPath, imageName, inventoryHost, vmName } from "./schemas";

/**
 * The first VM a DAG will create, when the check is the DAG's placement step: the router then
 * places the check as it would that VM's vm_create (the host already holding the name, the
 * pinned host, else free capacity), and the output's `host` keeps the DAG's later steps there.
 */
const placeArgs = z.object({
  name: vmName,
  image: imageName.nullish(),
  memory_mb: z.coerce.number().int().min(64).max(1_048_576).default(512),
  cpus: z.coerce.number().int().min(1).max(256).default(1),
  disks_gb: z.array(z.coerce.number().int().min(1).max(65_536)).max(16).default([]),
});

const args = z.object({
  min_disk_gb: z.coerce.number().min(0).default(10),
  min_memory_mb: z.coerce.number().min(0).default(2048),
  /** Where free disk is measured (default: the VM images directory). */
  path: hostPath.optional(),
  /** Fail the task when a finding has severity error (default: report only). */
  fail_on_error: z.boolean().default(false),
  /** Check this host of the inventory (default: local, the configured host). */
  host: inventoryHost.nullish(),
  place: placeArgs.nullish(),
});
type Args = z.infer<typeof args>;

/** One observation about the host. */
export interface Finding {
  check: string;
  severity: "ok" | "warning" | "error";
  message: string;
}

const HAS_TOOL = 'command -v -- "$1"';

/** Probe the host for what VMs need; every problem is a finding in the output, not a crash. */
export function createHostCheckOperator(deps: HostOperatorDeps = {}): Operator<Args> {
  const exFor = deps.executor ?? defaultHostExecutor;
  return {
    name: "host_check",
    description:
      "Check the host: hardware virtualization, /dev/kvm, libvirt, tools, free disk and memory; output findings and host (the host of the inventory checked: with place, the host the VM named there goes to)",
    args,
    hostScoped: true,
    async run(a, ctx) {
      const ex = executorFor(ctx, exFor);
      const s = hostOperatorSettings(deps.env);
      const findings: Finding[] = [];
      const add = (check: string, severity: Finding["severity"], message: string) => (
        findings.push({ check, severity, message }),
        ctx.log(`${severity}: ${check}: ${message}`, "system")
      );
      const run = (argv: string[], root = false) => ex.run(argv, { root, timeoutMs: 60_000, signal: ctx.signal });

      const flags = await run(["grep", "-c", "-E", "-w", "vmx|svm", "/proc/cpuinfo"]);
      const hwVirt = flags.code === 0 && Number(flags.stdout.trim()) > 0;
      add(
        "virtualization",
        hwVirt ? "ok" : "warning",
        hwVirt ? "CPU has VT-x/AMD-V" : "no hardware virtualization (VT-x/AMD-V): VMs run under TCG emulation, several times slower",
      );
      const kvm = await run(["test", "-r", "/dev/kvm", "-a", "-w", "/dev/kvm"], true);
      add(
        "kvm",
        kvm.code === 0 && hwVirt ? "ok" : "warning",
        kvm.code !== 0
          ? "/dev/kvm is missing or not usable: domains use type qemu (TCG)"
          : hwVirt
            ? "/dev/kvm usable"
            : "/dev/kvm exists but the CPU shows no virtualization flags: TCG will be used",
      );
      const uri = ctx.host ? ctx.host.libvirtUri : (s.libvirtUri ?? "qemu:///system");
      const virsh = await run(["virsh", "--connect", uri, "version"], true);
      const libvirt = virsh.code === 0;
      add(
        "libvirt",
        libvirt ? "ok" : "error",
        libvirt ? `libvirt answers at ${uri}` : `libvirt not reachable at ${uri}: ${lastLine(virsh.stderr)}; start it (systemctl start libvirtd, or virtlogd -d && libvirtd -d)`,
      );
      // A host reached through a jump runs no plays: ansible-playbook runs where the worker's configured host is.
      const tools = ["qemu-img", ...(ctx.host?.jump ? [] : ["ansible-playbook"]), "ssh-keyscan", s.vmCli[0]!];
      for (const tool of tools) {
        const t = await run(["sh", "-c", HAS_TOOL, "sh", tool], true);
        add(`tool:${tool}`, t.code === 0 ? "ok" : "error", t.code === 0 ? `${tool} found` : `${tool} not found on PATH`);
      }
      const diskPath = a.path ?? (ctx.host ? ctx.host.imagesDir : ctx.config.vm.imagesDir);
      const diskFree = await freeDiskGb(ex, diskPath, ctx);
      if (diskFree === null) add("disk", "warning", `cannot measure free disk at ${diskPath}`);
      else add("disk", diskFree >= a.min_disk_gb ? "ok" : "error", `${diskFree} GB free (minimum ${a.min_disk_gb} GB)`);
      const mem = await run(["cat", "/proc/meminfo"]);
      const avail = /MemAvailable:\s+(\d+) kB/.exec(mem.stdout);
      const memMb = avail ? Math.floor(Number(avail[1]) / 1024) : null;
      if (memMb === null) add("memory", "warning", "cannot read /proc/meminfo");
      else add("memory", memMb >= a.min_memory_mb ? "ok" : "warning", `${memMb} MiB available (minimum ${a.min_memory_mb} MiB)`);

      const errors = findings.filter((f) => f.severity === "error");
      if (a.fail_on_error && errors.length) throw new NonRetryableError(`host check failed: ${errors.map((f) => `${f.check}: ${f.message}`).join("; ")}`);
      return {
        ok: errors.length === 0,
        virt_type: hwVirt && kvm.code === 0 ? "kvm" : "qemu",
        libvirt,
        disk_free_gb: diskFree,
        memory_available_mb: memMb,
        findings,
        host: actedOnHost(ctx),
      };
    },
  };
}

/** Free GB on the filesystem of `path`, or of its nearest existing parent. */
async function freeDiskGb(ex: HostExecutor, path: string, ctx: OperatorContext): Promise<number | null> {
  const parts = path.split("/");
  for (let n = parts.length; n >= 1; n--) {
    const p = parts.slice(0, n).join("/") || "/";
    const r = await ex.run(["df", "-Pk", "--", p], { timeoutMs: 30_000, signal: ctx.signal });
    const m = /\n\S+\s+\d+\s+\d+\s+(\d+)\s+/.exec(r.stdout);
    if (r.code === 0 && m) return Math.floor(Number(m[1]) / 1024 / 1024);
  }
  return null;
}

function lastLine(s: string): string {
  return (
    s
      .trim()
      .split("\n")
      .pop()
      ?.replace(/^error:\s*/i, "") || "no output"
  );
}
