import { z } from "zod";
import { NonRetryableError } from "@svc/errors";
import { RescheduleTry, type Operator } from "../ports";
import { childRun, derivedTriggerRunId } from "./trigger-dag-run";

const args = z.object({
  trigger_dag_id: z.string().min(1),
  /** One child run per conf, all triggered at once (a list an upstream task gave); empty: nothing to do. */
  confs: z.array(z.record(z.string(), z.unknown())).max(100),
  poke_interval: z.coerce.number().min(1).max(86400).default(10),
  /** Seconds from the first child's trigger until the wait gives up. */
  timeout: z.coerce
    .number()
    .min(1)
    .default(7 * 24 * 3600),
});

export type TriggerDagRunsArgs = z.output<typeof args>;

/**
 * Trigger one run of a DAG per conf and wait for all of them without holding a worker slot (the
 * fan-out of trigger_dag_run, as Airflow's mapped TriggerDagRunOperator). Every child runs to its
 * end even when another fails; then the task succeeds when all succeeded, else fails naming each
 * failed child and its reason. The children's run ids are this try's trigger_dag_run id with
 * `.<index>`: a redelivery finds the runs it made, a new try makes new ones.
 */
export const triggerDagRunsOperator: Operator<TriggerDagRunsArgs> = {
  name: "trigger_dag_runs",
  description:
    "Trigger one run of another DAG per conf in a list (each checked against its params) and wait for all, polling every poke_interval seconds without holding a worker slot",
  args,
  resumable: true,
  async run(a, ctx) {
    const port = ctx.dagRuns;
    if (!port) throw new NonRetryableError("trigger_dag_runs runs only on an engine worker (no DAG runs port here)");
    const base = derivedTriggerRunId(ctx);
    const children = [];
    for (const [i, conf] of a.confs.entries()) children.push(await childRun(port, { trigger_dag_id: a.trigger_dag_id, conf }, `${base}.${i}`, ctx));
    const runs = children.map((c, i) => ({ trigger_run_id: `${base}.${i}`, state: c.state }));
    const output = { trigger_dag_id: a.trigger_dag_id, runs };
    const open = runs.filter((r) => r.state === "queued" || r.state === "running");
    if (open.length === 0) {
      const failed = runs.filter((r) => r.state !== "success");
      if (failed.length === 0) {
        ctx.log(`${runs.length} run(s) of DAG ${a.trigger_dag_id} succeeded`);
        return output;
      }
      const reasons = await Promise.all(failed.map(async (r) => `${r.trigger_run_id}: ${await port.failureReason(a.trigger_dag_id, r.trigger_run_id)}`));
      const msg = `${failed.length} of ${runs.length} triggered run(s) of DAG ${a.trigger_dag_id} failed: ${reasons.join("; ")}`;
      ctx.log(msg, "stderr");
      throw new Error(msg);
    }
    const first = Math.min(...children.map((c) => c.triggeredAt.getTime()));
    const waitedS = (Date.now() - first) / 1000;
    if (waitedS >= a.timeout) {
      throw new NonRetryableError(
        `timeout of ${a.timeout}s waiting for ${open.length} run(s) of DAG ${a.trigger_dag_id} (${open.map((r) => r.trigger_run_id).join(", ")}): left running (mark them failed to stop them)`,
      );
    }
    const delay = Math.max(1, Math.min(a.poke_interval, Math.ceil(a.timeout - waitedS)));
    ctx.log(`${open.length} of ${runs.length} run(s) of DAG ${a.trigger_dag_id} still queued or running; checking again in ${delay}s`);
    throw new RescheduleTry(delay, output);
  },
};
