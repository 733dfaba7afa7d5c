import type { FlowRow } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import { isSvcError } from "@svc/errors";
import type { FlowStore } from "./flow-store";

/**
 * Move an in_progress flow to completed/failed once its DAG run has finished. Called by readers
 * (GET, SSE) and by the orchestrator's sweep; the status guard makes concurrent calls harmless.
 */
export async function syncFlowWithRun(store: FlowStore, api: Pick<EngineApi, "getDagRun">, row: FlowRow): Promise<FlowRow> {
  if (row.status !== "in_progress" || !row.dag_id || !row.run_id) return row;
  let state: string;
  try {
    state = (await api.getDagRun(row.dag_id, row.run_id)).state;
  } catch (e) {
    if (!isSvcError(e) || e.code !== "dag_run_not_found") throw e;
    const gone = await store.update(row.flow_id, { status: "failed", error_message: `DAG run ${row.run_id} no longer exists (deleted)` }, ["in_progress"]);
    return gone ?? (await store.get(row.flow_id)) ?? row;
  }
  if (state === "success") {
    const done = await store.update(
      row.flow_id,
      { status: "completed", summary: `${row.dag_id} run ${row.run_id} succeeded.`, next_steps: [`Inspect the result in the workflow UI grid view of ${row.dag_id}.`] },
      ["in_progress"],
    );
    return done ?? (await store.get(row.flow_id)) ?? row;
  }
  if (state === "failed") {
    const failed = await store.update(
      row.flow_id,
      {
        status: "failed",
        summary: `${row.dag_id} run ${row.run_id} failed.`,
        error_message: `DAG run ${row.run_id} failed`,
        next_steps: [`POST /orchestrator/observe?dag_id=${row.dag_id}&run_id=${row.run_id} for the failed tasks and their log lines.`],
      },
      ["in_progress"],
    );
    return failed ?? (await store.get(row.flow_id)) ?? row;
  }
  return row;
}
