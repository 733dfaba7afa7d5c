import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { ApiDagRun, EngineApi } from "@svc/engine";
import { AlreadyExistsError, DagRunNotFoundError } from "@svc/errors";
import { roleAtLeast, type Role } from "@svc/http";
import { ToolInputError } from "@svc/mcp";

export interface TriggerRequest {
  dag_id: string;
  conf?: Record<string, unknown>;
  idempotency_key?: string;
  note?: string;
}

export interface TriggerOutcome {
  run: ApiDagRun;
  /** True when the idempotency key matched an earlier run, which is returned instead of a new one. */
  deduplicated: boolean;
}

/** The run id an idempotency key maps to: same DAG and key, same run, whoever asks and however often. */
export function runIdForKey(dagId: string, key: string): string {
  return `mcp__${createHash("sha256").update(`${dagId}\u0000${key}`).digest("hex").slice(0, 32)}`;
}

async function existingRun(api: EngineApi, dagId: string, runId: string): Promise<ApiDagRun | undefined> {
  try {
    return await api.getDagRun(dagId, runId);
  } catch (e) {
    if (e instanceof DagRunNotFoundError) return undefined;
    throw e;
  }
}

/** The earlier run when its conf agrees with the request (defaults may have been added); otherwise an error. */
function matchOrRefuse(run: ApiDagRun, req: TriggerRequest): TriggerOutcome {
  const stored = run.conf ?? {};
  const differing = Object.entries(req.conf ?? {})
    .filter(([k, v]) => !isDeepStrictEqual(stored[k], v))
    .map(([k]) => k);
  if (differing.length) {
    throw new ToolInputError(`already used for run ${run.dag_run_id} with a different conf (${differing.map((k) => `conf.${k}`).join(", ")}); use a new key`, "idempotency_key");
  }
  return { run, deduplicated: true };
}

/**
 * Trigger a run; conf is validated against the DAG's params by the engine before anything is
 * written. With an idempotency key the run id is derived from it, so a retried call finds the
 * run the first call created (also when both race: the second insert fails and reads the first).
 */
export async function triggerRun(api: EngineApi, req: TriggerRequest, role: Role): Promise<TriggerOutcome> {
  const runId = req.idempotency_key ? runIdForKey(req.dag_id, req.idempotency_key) : undefined;
  if (runId) {
    const earlier = await existingRun(api, req.dag_id, runId);
    if (earlier) return matchOrRefuse(earlier, req);
  }
  try {
    // A tool client runs what the server's role may: params reserved for a higher role (min_role) are refused.
    const callerHasRole = (need: Role) => roleAtLeast(role, need);
    return { run: await api.triggerDagRun(req.dag_id, { conf: req.conf ?? {}, runId, note: req.note ?? null, callerHasRole }), deduplicated: false };
  } catch (e) {
    if (runId && e instanceof AlreadyExistsError) {
      const earlier = await existingRun(api, req.dag_id, runId);
      if (earlier) return matchOrRefuse(earlier, req);
    }
    throw e;
  }
}
