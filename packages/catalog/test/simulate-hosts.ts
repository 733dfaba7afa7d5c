import { createTemplateContext, evaluateCondition, renderArgs, validateParams, type DagDefinition } from "@svc/dags";
import { decideRun, type TiView } from "@svc/engine";
import { defaultOperators } from "@svc/operators";

/** One task that ran in the simulation: its args as the worker renders them, and the host it ran on. */
export interface RoutedTask {
  operator: string;
  hostScoped: boolean;
  args: Record<string, unknown>;
  /** Where the router puts the try (host-scoped tasks only). */
  host?: string;
}

/** The hosts the simulated router answers: where placement puts a new VM, and which host holds which VM. */
export interface HostWorld {
  placed: string;
  held: Record<string, string>;
  /** Hosts that are cloud hosts: their host_check and vm_delete say their provider, as the operators do. */
  clouds?: Record<string, string>;
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** The VM a try names, as @svc/hosts' vmsNamedBy reads it. */
function vmNamed(operator: string, args: Record<string, unknown>): string | undefined {
  if (operator === "ansible_playbook") return str(args.vm) ?? (args.on_host === true ? str((args.extra_vars as Record<string, unknown> | undefined)?.vm_name) : undefined);
  if (operator === "ssh" || operator === "host_check") return undefined;
  return str(args.name);
}

/** The router's rules (packages/hosts/src/routing/route.ts), on a world given by the test: a host arg, a held name, placement, else local. */
function route(operator: string, args: Record<string, unknown>, world: HostWorld): string {
  const pinned = str(args.host);
  if (pinned) return pinned;
  const place = args.place as Record<string, unknown> | undefined;
  const created = operator === "vm_create" ? str(args.name) : operator === "host_check" && place ? str(place.name) : undefined;
  if (created) return world.held[created] ?? world.placed;
  const vm = vmNamed(operator, args);
  return (vm && world.held[vm]) ?? "local";
}

/** A successful try's output, with `host` where the operators report it. */
function outputOf(t: RoutedTask, taskId: string, clouds: Record<string, string> = {}): Record<string, unknown> {
  const provider = t.host && clouds[t.host] ? { provider: clouds[t.host] } : {};
  const name = str(t.args.name) ?? "sim-vm";
  const vm = { name, state: "running", ssh_host: "192.0.2.10", ssh_port: 22, ssh_user: "root", ip: "192.0.2.10", forwards: [], macs: [] };
  if (t.operator === "host_check") return { ok: true, findings: [], host: t.host, ...provider };
  if (t.operator === "vm_create" || t.operator === "vm_info") return { ...vm, host: t.host };
  if (t.operator === "vm_wait_ssh") return { ...vm, host_keys: [] };
  if (t.operator === "vm_delete") return { name, deleted: true, host: t.host, ...provider };
  if (t.operator === "shell" && taskId === "name_vm") return { exit_code: 0, stdout_tail: "vm-20250101-000000" };
  return {};
}

/**
 * Run a DAG through the engine's scheduling core with every task succeeding (except `fail`),
 * rendering each task's args as the worker does and routing host-scoped ones as the router would
 * in `world`: which host each step acts on. No database, no host.
 */
export function simulateHosts(dag: DagDefinition, conf: Record<string, unknown>, world: HostWorld, fail: string[] = []): Record<string, RoutedTask> {
  const v = validateParams(dag, conf);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const params = JSON.parse(JSON.stringify(v.params)) as Record<string, unknown>;
  const ops = defaultOperators();
  const tis: TiView[] = dag.tasks.map((t) => ({ task_id: t.task_id, state: null, try_number: 0, next_retry_at: null }));
  const outputs: Record<string, unknown> = {};
  const ran: Record<string, RoutedTask> = {};
  const held = { ...world.held };
  for (let round = 0; round < 100; round++) {
    const ctx = createTemplateContext({ dagId: dag.dag_id, runId: "manual__sim", logicalDate: new Date(0), params, outputs });
    const d = decideRun(dag, tis, new Date(), (task) => evaluateCondition(task.when, ctx));
    const set = (id: string, s: TiView["state"]) => (tis.find((t) => t.task_id === id)!.state = s);
    d.skip.forEach((id) => set(id, "skipped"));
    d.upstreamFailed.forEach((id) => set(id, "upstream_failed"));
    for (const q of d.queue) {
      const task = dag.tasks.find((t) => t.task_id === q.task_id)!;
      const op = ops.get(task.operator)!;
      const parsed = op.args.safeParse(renderArgs(task.args, ctx));
      if (!parsed.success) throw new Error(`${dag.dag_id}.${task.task_id}: ${parsed.error.message}`);
      const args = parsed.data as Record<string, unknown>;
      const t: RoutedTask = { operator: task.operator, hostScoped: !!op.hostScoped, args, ...(op.hostScoped ? { host: route(task.operator, args, { ...world, held }) } : {}) };
      ran[q.task_id] = t;
      if (task.operator === "vm_create") held[String(args.name)] = t.host!;
      set(q.task_id, fail.includes(q.task_id) ? "failed" : "success");
      if (!fail.includes(q.task_id)) outputs[q.task_id] = outputOf(t, task.task_id, world.clouds);
    }
    if (d.runState !== "running") return ran;
  }
  throw new Error("simulation did not finish");
}
