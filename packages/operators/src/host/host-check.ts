import { NonRetryableError } from "@svc/errors";
import { runSections, type HostExecutor } from "@svc/host";
import { DF_SCRIPT, dfFreeGb, memAvailableMb, pathAndParents } from "@svc/hosts/capacity";
import type { Operator, OperatorContext } from "../types";
import { actedOnHost, defaultHostExecutor, executorFor, hostOperatorSettings, type HostOperatorDeps } from "./deps";
import { args, type Args } from "./host-check-args";

/** One observation about the host. */
export interface Finding {
  check: string;
  severity: "ok" | "warning" | "error";
  message: string;
}

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
      if (ctx.host?.cloud) {
        // A cloud host has no hypervisor to check: its provider's API answered the worker's last probe (else the try would wait for it).
        const c = ctx.host.cloud;
        const message = `cloud host ${ctx.host.name}: ${c.provider} ${c.region}, its API answered this worker's last probe`;
        ctx.log(`ok: provider: ${message}`, "system");
        return {
          ok: true,
          virt_type: null,
          libvirt: false,
          disk_free_gb: null,
          memory_available_mb: null,
          findings: [{ check: "provider", severity: "ok", message }],
          host: ctx.host.name,
          // The DAGs' steps on the host side (its /etc/hosts, product records) are a libvirt host's only.
          provider: c.provider,
        };
      }
      const ex = executorFor(ctx, exFor);
      const s = hostOperatorSettings(ctx.config.vm);
      const findings: Finding[] = [];
      const add = (check: string, severity: Finding["severity"], message: string) => (
        findings.push({ check, severity, message }),
        ctx.log(`${severity}: ${check}: ${message}`, "system")
      );
      const uri = ctx.host ? ctx.host.libvirtUri : (s.libvirtUri ?? "qemu:///system");
      // A host reached through a jump runs no plays: ansible-playbook runs where the worker's configured host is.
      const tools = ["qemu-img", ...(ctx.host?.jump ? [] : ["ansible-playbook"]), "ssh-keyscan", s.vmCli[0]!];
      const diskPath = a.path ?? (ctx.host ? ctx.host.imagesDir : ctx.config.vm.imagesDir);
      const r = await probeHost(ex, uri, tools, diskPath, ctx);

      const hwVirt = r.virt?.code === 0 && Number(r.virt.out.trim()) > 0;
      add(
        "virtualization",
        hwVirt ? "ok" : "warning",
        hwVirt ? "CPU has VT-x/AMD-V" : "no hardware virtualization (VT-x/AMD-V): VMs run under TCG emulation, several times slower",
      );
      const kvmOk = r.kvm?.code === 0;
      add(
        "kvm",
        kvmOk && hwVirt ? "ok" : "warning",
        !kvmOk
          ? "/dev/kvm is missing or not usable: domains use type qemu (TCG)"
          : hwVirt
            ? "/dev/kvm usable"
            : "/dev/kvm exists but the CPU shows no virtualization flags: TCG will be used",
      );
      const libvirt = r.virsh?.code === 0;
      add(
        "libvirt",
        libvirt ? "ok" : "error",
        libvirt
          ? `libvirt answers at ${uri}`
          : `libvirt not reachable at ${uri}: ${lastLine(r.virsh?.out ?? "")}; start it (systemctl start libvirtd, or virtlogd -d && libvirtd -d)`,
      );
      tools.forEach((tool, i) => {
        const found = r[`tool${i}`]?.code === 0;
        add(`tool:${tool}`, found ? "ok" : "error", found ? `${tool} found` : `${tool} not found on PATH`);
      });
      const diskFree = r.df?.code === 0 ? dfFreeGb(r.df.out) : null;
      if (diskFree === null) add("disk", "warning", `cannot measure free disk at ${diskPath}`);
      else add("disk", diskFree >= a.min_disk_gb ? "ok" : "error", `${diskFree} GB free (minimum ${a.min_disk_gb} GB)`);
      const memMb = memAvailableMb(r.mem?.out);
      if (memMb === null) add("memory", "warning", "cannot read /proc/meminfo");
      else add("memory", memMb >= a.min_memory_mb ? "ok" : "warning", `${memMb} MiB available (minimum ${a.min_memory_mb} MiB)`);

      const errors = findings.filter((f) => f.severity === "error");
      if (a.fail_on_error && errors.length) throw new NonRetryableError(`host check failed: ${errors.map((f) => `${f.check}: ${f.message}`).join("; ")}`);
      return {
        ok: errors.length === 0,
        virt_type: hwVirt && kvmOk ? "kvm" : "qemu",
        libvirt,
        disk_free_gb: diskFree,
        memory_available_mb: memMb,
        findings,
        host: actedOnHost(ctx),
      };
    },
  };
}

/**
 * Every probe of the check in one command on the host (as root: /dev/kvm and libvirt need it;
 * runSections). $1 libvirt URI, $2 how many tools, then the tools, then the paths to measure free
 * disk at (the path, then its parents: the first that exists).
 */
const PROBES = `uri=$1 n=$2; shift 2
section virt grep -c -E -w 'vmx|svm' /proc/cpuinfo
section kvm test -r /dev/kvm -a -w /dev/kvm
section virsh virsh --connect "$uri" version
i=0; while [ "$i" -lt "$n" ]; do section "tool$i" command -v -- "$1"; i=$((i + 1)); shift; done
for p in "$@"; do ${DF_SCRIPT} >/dev/null 2>&1 && { section df ${DF_SCRIPT}; break; }; done
section mem cat /proc/meminfo`;

type Probes = Record<string, { code: number; out: string } | undefined>;

async function probeHost(ex: HostExecutor, uri: string, tools: string[], diskPath: string, ctx: OperatorContext): Promise<Probes> {
  const r = await runSections(ex, PROBES, [uri, String(tools.length), ...tools, ...pathAndParents(diskPath)], { root: true, timeoutMs: 60_000, signal: ctx.signal });
  return Object.fromEntries(r.sections.map((x) => [x.name, { code: x.code, out: x.out }]));
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
