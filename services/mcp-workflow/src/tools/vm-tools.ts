import { z } from "zod";
import { defineTool, ToolInputError, type ToolContext, type ToolDef } from "@svc/mcp";
import type { WorkflowToolDeps } from "../deps";
import { preflightVm } from "../preflight";
import { HostVerdict, preflightOnHosts } from "../preflight-hosts";
import { RunSummary, runSummary, TaskSummary } from "../shapes";
import { triggerRun } from "../trigger";
import type { VmCliInfo, VmTools } from "../vm-access";
import { DEFAULT_MAX_PROBE_AGE_MS, hostArg, hostRecords, HostStatus, isMultiHost, requireKnownHost } from "../vm-hosts";
import { findVmOnHosts, listVmsOnHosts } from "../vm-lookup";
import { waitForRun } from "../wait-run";

const vmName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, "lowercase letters, digits and '-', starting with a letter, at most 63")
  .describe("VM name");
const Vm = z.object({
  name: z.string(),
  state: z.string(),
  image: z.string().nullable(),
  cpus: z.number().nullable(),
  memory_mb: z.number().nullable(),
  ip: z.string().nullable(),
  host: z.string().describe("the host holding the VM"),
});
const vmOf = (v: VmCliInfo & { host: string }): z.infer<typeof Vm> => ({
  name: v.name,
  state: v.state,
  image: v.image ?? null,
  cpus: v.cpus ?? null,
  memory_mb: v.memory_mb ?? null,
  ip: v.ip ?? null,
  host: v.host,
});
const size = {
  image: z.string().max(63).optional(),
  cpus: z.number().int().min(1).max(64).optional(),
  memory_mb: z.number().int().min(256).max(262_144).optional(),
  disk_gb: z.number().int().min(1).max(4096).optional(),
};
const RunOutcome = z.object({ run: RunSummary, deduplicated: z.boolean(), tasks: z.array(TaskSummary), waited: z.boolean() });

function requireVms(d: WorkflowToolDeps): VmTools {
  if (!d.vms) throw new ToolInputError("VM access is not configured on this server (SVC_SSH_HOST)");
  return d.vms;
}
const FAILED = { live: "VM CLI", probe: "probe", provider: "identity call" } as const;
const hostsText = (hs: HostStatus[]) =>
  hs.flatMap((h) => [
    ...(h.error ? [`host ${h.name}: ${FAILED[h.source]} failed: ${h.error}`] : []),
    ...(h.provider !== "libvirt" ? [`host ${h.name}: ${h.provider} ${h.region ?? ""} ${h.up ? "up" : "down"}${h.note ? `; ${h.note}` : ""}`] : []),
  ]);

/** Run the VM DAG with a conf, optionally waiting for the end. */
async function runVmDag(d: WorkflowToolDeps, conf: Record<string, unknown>, key: string | undefined, waitSeconds: number, ctx: ToolContext) {
  const dagId = d.vmDagId ?? "vm_deployment";
  const { run, deduplicated } = await triggerRun(d.api, { dag_id: dagId, conf, idempotency_key: key }, d.role);
  if (waitSeconds === 0) return { run: runSummary(run), deduplicated, tasks: [], waited: false };
  const out = await waitForRun(d.api, dagId, run.dag_run_id ?? "", { timeoutMs: waitSeconds * 1000, pollMs: d.pollMs ?? 500, ctx });
  return { run: runSummary(out.run), deduplicated, tasks: out.tasks, waited: true };
}

const common = {
  idempotency_key: z.string().min(1).max(200).optional().describe("retrying with the same key returns the same run"),
  wait_seconds: z.number().int().min(0).max(3600).default(0).describe("0: return the queued run at once; otherwise wait (with progress) up to this long"),
};

/** VMs on the host: read them directly; create and delete through the VM workflow (validated, logged, retried). */
export function vmTools(d: WorkflowToolDeps): ToolDef[] {
  return [
    defineTool({
      name: "list_vms",
      title: "List VMs",
      description:
        "VMs on every host with their host, state, image, size and IP (hosts other than local: from their last probe); a host that could not be read is listed with its error; filter by name text or state.",
      tier: "read",
      action: "read",
      openWorld: true,
      input: z.object({ name_contains: z.string().max(63).optional(), state: z.string().max(20).optional(), limit: z.number().int().min(1).max(200).default(50) }),
      output: z.object({ vms: z.array(Vm), total: z.number(), hosts: z.array(HostStatus) }),
      async run(a) {
        const records = await hostRecords(d.hosts);
        const found = await listVmsOnHosts(d.vms, records);
        const all = found.vms.map(vmOf).filter((v) => (!a.name_contains || v.name.includes(a.name_contains)) && (!a.state || v.state === a.state));
        const vms = all.slice(0, a.limit);
        const on = isMultiHost(records) ? (v: { host: string }) => ` on ${v.host}` : () => "";
        const lines = [...vms.map((v) => `${v.name}: ${v.state}${on(v)}${v.ip ? ` ${v.ip}` : ""}`), ...hostsText(found.hosts)];
        return { data: { vms, total: all.length, hosts: found.hosts }, text: lines.join("\n") || "no VMs" };
      },
    }),
    defineTool({
      name: "get_vm_info",
      title: "VM details",
      description: "One VM on whichever host holds it: its host, state, image, size, IP and SSH endpoint (hosts other than local: from their last probe).",
      tier: "read",
      action: "read",
      openWorld: true,
      input: z.object({ vm_name: vmName }),
      output: Vm.extend({
        ssh_host: z.string().nullable(),
        ssh_port: z.number().nullable(),
        source: z.enum(["live", "probe"]).describe("live: the VM CLI now; probe: the host's last probe (at probed_at)"),
        probed_at: z.string().nullable(),
        also_on: z.array(z.string()).describe("other hosts whose last probe also lists the name"),
      }),
      async run(a) {
        const records = await hostRecords(d.hosts);
        const v = await findVmOnHosts(d.vms, records, a.vm_name);
        const data = { ...vmOf(v), ssh_host: v.ssh_host ?? null, ssh_port: v.ssh_port ?? null, source: v.source, probed_at: v.probed_at, also_on: v.also_on };
        const where = isMultiHost(records) ? ` on host ${data.host}${v.source === "probe" ? ` (last probe ${v.probed_at})` : ""}` : "";
        const also = data.also_on.length ? `; also listed on ${data.also_on.join(", ")}` : "";
        return { data, text: `${data.name}: ${data.state}${where}${data.ip ? `, ip ${data.ip}` : ""}${also}` };
      },
    }),
    defineTool({
      name: "preflight_vm_creation",
      title: "Preflight a VM creation",
      description:
        "Dry run of create_vm: are the params valid, the name free, and which host would take the VM (each host's verdict and why not, from their last probes; one host: is it reachable, the hypervisor up, the image present, enough memory and disk)? Changes nothing.",
      tier: "read",
      action: "read",
      openWorld: true,
      input: z.object({ vm_name: z.string().max(300).describe("the name to check (any text: the answer says what is wrong with it)"), ...size, host: hostArg.optional() }),
      output: z.object({
        would_succeed: z.boolean(),
        checks: z.array(z.object({ check: z.string(), ok: z.boolean(), detail: z.string() })),
        conf: z.record(z.string(), z.unknown()),
        host: z.string().nullable().describe("the host the VM would go to (null: none fits)"),
        hosts: z.array(HostVerdict).optional().describe("each host's verdict (several hosts)"),
      }),
      async run(a) {
        const { vm_name, ...rest } = a;
        const records = await hostRecords(d.hosts);
        if (a.host) requireKnownHost(records, a.host);
        const dagId = d.vmDagId ?? "vm_deployment";
        const r = isMultiHost(records)
          ? await preflightOnHosts(d.api, dagId, { vm_name, ...rest }, d.dagSettings ?? {}, records, {
              weigher: d.weigher ?? "spread",
              maxProbeAgeMs: d.maxProbeAgeMs ?? DEFAULT_MAX_PROBE_AGE_MS,
            })
          : { ...(await preflightVm(d.api, requireVms(d), dagId, { vm_name, ...rest }, d.dagSettings ?? {})), host: "local" };
        const failed = r.checks.filter((c) => !c.ok);
        const data = { would_succeed: failed.length === 0, ...r };
        const on = r.host ? ` on host ${r.host}` : "";
        return { data, text: failed.length ? `would fail: ${failed.map((c) => `${c.check}: ${c.detail}`).join("; ")}` : `all checks pass${on}` };
      },
    }),
    defineTool({
      name: "create_vm",
      title: "Create a VM",
      description:
        "Create a VM through the VM workflow (params validated first; call preflight_vm_creation to check the hosts beforehand). host: a host of the inventory; absent: placement chooses.",
      tier: "write",
      action: "trigger_run",
      openWorld: true,
      input: z.object({ vm_name: vmName, ...size, host: hostArg.optional(), ...common }),
      output: RunOutcome,
      async run(a, ctx) {
        const { idempotency_key, wait_seconds, ...conf } = a;
        if (a.host) requireKnownHost(await hostRecords(d.hosts), a.host);
        const out = await runVmDag(d, { action: "create", ...conf }, idempotency_key, wait_seconds, ctx);
        return { data: out, text: `create ${a.vm_name}${a.host ? ` on host ${a.host}` : ""}: run ${out.run.run_id} ${out.run.state}` };
      },
    }),
    defineTool({
      name: "delete_vm",
      title: "Delete a VM",
      description: "Delete a VM and its disks through the VM workflow. Destructive: the disks are gone.",
      tier: "destructive",
      action: "trigger_run",
      idempotent: true,
      openWorld: true,
      input: z.object({ vm_name: vmName, ...common }),
      output: RunOutcome,
      async run(a, ctx) {
        const out = await runVmDag(d, { action: "delete", vm_name: a.vm_name }, a.idempotency_key, a.wait_seconds, ctx);
        return { data: out, text: `delete ${a.vm_name}: run ${out.run.run_id} ${out.run.state}` };
      },
    }),
  ];
}
