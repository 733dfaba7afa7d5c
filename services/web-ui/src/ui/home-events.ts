import type { Request, Response } from "express";
import type { Db } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import type { Logger } from "@svc/logger";
import { serveEventStream, type EventStreamOptions, type SendEvent } from "./event-stream";
import { dagLiveStatesFromDb, DOT_RUNS, nextRunOf, type DagLiveState } from "./home-query";

/** Every active DAG's live state through the engine API (used when the UI has no database handle). */
async function dagLiveStatesFromApi(api: EngineApi, now: Date): Promise<DagLiveState[]> {
  const { dags } = await api.listDags({ limit: 1000, only_active: true });
  return Promise.all(
    dags.map(async (d) => ({
      dag_id: d.dag_id,
      is_paused: d.is_paused,
      next_run: nextRunOf(d.schedule_interval?.value, d.is_paused, now),
      runs: (await api.listDagRuns({ dag_id: d.dag_id, order_by: "-execution_date", limit: DOT_RUNS })).dag_runs.map((r) => ({
        dag_id: d.dag_id,
        dag_run_id: r.dag_run_id,
        state: r.state,
      })),
    })),
  );
}

/**
 * GET /home/events: Server-Sent Events for the DAG list. Each poll reads every DAG's pause flag,
 * newest runs and schedule in one query and sends one `dags` event listing the DAGs whose state
 * changed since the last one sent (nothing when nothing changed); the first lists every DAG.
 */
export async function streamHomeEvents(api: EngineApi, db: Db | undefined, logger: Logger, opts: EventStreamOptions, req: Request, res: Response): Promise<void> {
  const sent = new Map<string, string>();
  const poll = async (send: SendEvent) => {
    const now = new Date();
    const states = db ? await dagLiveStatesFromDb(db, DOT_RUNS, now) : await dagLiveStatesFromApi(api, now);
    const changed = states.filter((s) => {
      const sig = JSON.stringify(s);
      if (sent.get(s.dag_id) === sig) return false;
      sent.set(s.dag_id, sig);
      return true;
    });
    if (changed.length) send("dags", { dags: changed });
  };
  await serveEventStream(req, res, logger, opts, { stream: "home" }, poll);
}
