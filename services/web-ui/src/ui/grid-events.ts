import type { Request, Response } from "express";
import type { EngineApi } from "@svc/engine";
import type { Logger } from "@svc/logger";
import { serveEventStream, type EventStreamOptions, type SendEvent } from "./event-stream";
import { cellTitle, gridRuns, runView, type CellLoader } from "./grid-data";

/** The grid stream's timing (the DAG list's stream uses the same). */
export type GridEventsOptions = EventStreamOptions;

const ACTIVE = new Set(["queued", "running"]);

/**
 * GET /dags/:dag_id/grid/events: Server-Sent Events for the grid. `ti` when a square changes
 * (state, try, times), `run` when a run changes, `runs` when the set of shown runs changes (the page
 * reloads the table). Only active or just-changed runs have their task instances read on each poll;
 * the first poll announces every run's state and the squares of the active ones.
 */
export async function streamGridEvents(api: EngineApi, cells: CellLoader, logger: Logger, opts: GridEventsOptions, req: Request, res: Response): Promise<void> {
  const dagId = String(req.params.dag_id);
  await api.getDag(dagId);
  const runStates = new Map<string, string>();
  const seen = new Map<string, string>();
  let runKeys: string | null = null;
  let polled = false;

  const poll = async (send: SendEvent) => {
    const runs = await gridRuns(api, dagId);
    const keys = runs.map((r) => r.dag_run_id).join("\n");
    if (runKeys !== null && keys !== runKeys) send("runs", { run_ids: runs.map((r) => r.dag_run_id) });
    runKeys = keys;
    // First poll: only active runs (the page shows the rest as rendered; a run that changed state
    // meanwhile is announced below and the page reloads its table).
    const first = !polled;
    polled = true;
    const toRead = runs.filter((r) => ACTIVE.has(r.state) || (!first && runStates.get(r.dag_run_id) !== r.state));
    for (const r of runs) {
      if (runStates.get(r.dag_run_id) !== r.state) send("run", { ...runView(r), initial: first });
      runStates.set(r.dag_run_id, r.state);
    }
    for (const cell of await cells(
      dagId,
      toRead.map((r) => r.dag_run_id),
    )) {
      const sig = `${cell.state}|${cell.try_number}|${cell.start_date}|${cell.end_date}|${cell.host}`;
      const key = `${cell.run_id}\n${cell.task_id}`;
      // The first poll sends every square of the active runs: the page may be a moment older than the stream.
      if (seen.get(key) !== sig) send("ti", { ...cell, title: cellTitle(cell) });
      seen.set(key, sig);
    }
  };

  await serveEventStream(req, res, logger, opts, { dagId }, poll);
}
