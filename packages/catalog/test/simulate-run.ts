import { createTemplateContext, evaluateCondition, validateParams, type DagDefinition } from "@svc/dags";
import { decideRun, type TiView } from "@svc/engine";

/** Outputs a successful try of each operator produces in the simulation (shapes as the operators document). */
function outputOf(operator: string, taskId: string): Record<string, unknown> {
  if (operator === "vm_create") return { name: "sim-vm", state: "running", ssh_host: "192.0.2.10", ssh_port: 22, ip: "192.0.2.10", image: "img", memory_mb: 512, cpus: 1 };
  if (operator === "vm_wait_ssh") return { name: "sim-vm", ssh_host: "192.0.2.10", ssh_port: 22, ssh_user: "root", host_keys: [] };
  if (operator === "shell" && taskId === "name_vm") return { exit_code: 0, stdout_tail: "vm-20250101-000000" };
  return {};
}

/**
 * Run a DAG through the engine's pure scheduling core with every task succeeding, except those
 * named in `fail`: which tasks run, which are skipped, and the run's final state. No database,
 * no host: it checks the branching (`when`, trigger rules) of the workflow itself.
 */
export function simulateRun(dag: DagDefinition, conf: Record<string, unknown>, fail: string[] = []) {
  const v = validateParams(dag, conf);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const params = JSON.parse(JSON.stringify(v.params)) as Record<string, unknown>;
  const tis: TiView[] = dag.tasks.map((t) => ({ task_id: t.task_id, state: null, try_number: 0, next_retry_at: null }));
  const outputs: Record<string, unknown> = {};
  const rounds: string[][] = [];
  for (let round = 0; round < 100; round++) {
    const ctx = createTemplateContext({ dagId: dag.dag_id, runId: "manual__sim", logicalDate: new Date(0), params, outputs });
    const d = decideRun(dag, tis, new Date(), (task) => {
      try {
        return evaluateCondition(task.when, ctx);
      } catch {
        return false; // the engine counts a condition that fails at run time as false
      }
    });
    const set = (id: string, s: TiView["state"]) => (tis.find((t) => t.task_id === id)!.state = s);
    d.skip.forEach((id) => set(id, "skipped"));
    d.upstreamFailed.forEach((id) => set(id, "upstream_failed"));
    if (d.queue.length) rounds.push(d.queue.map((q) => q.task_id));
    for (const q of d.queue) {
      const task = dag.tasks.find((t) => t.task_id === q.task_id)!;
      if (fail.includes(q.task_id)) set(q.task_id, "failed");
      else {
        set(q.task_id, "success");
        outputs[q.task_id] = outputOf(task.operator, task.task_id);
      }
    }
    if (d.runState !== "running") {
      return {
        state: d.runState,
        states: Object.fromEntries(tis.map((t) => [t.task_id, t.state])) as Record<string, string>,
        ran: tis.filter((t) => t.state === "success" || t.state === "failed").map((t) => t.task_id),
        /** The tasks queued together in each scheduling round: those of one round run side by side. */
        rounds,
      };
    }
  }
  throw new Error("simulation did not finish");
}
