import { sql } from "kysely";
import type { Db, FlowRow } from "@svc/db";
import { NotFoundError } from "@svc/errors";
import { groupedFlowCreate } from "./flow-create";
import { CREATE_FLOW_SQL, flowRows, selectFlow, updateFlowSql } from "./flow-sql";
import type { FlowStatus, Phase } from "./flow-status";
import { newExecutionId, newFlowId } from "./ids";
import type { ApproverRole } from "./pipeline/approval-needs";

/** What a new flow starts from: the request as the client sent it. */
export interface NewFlowInput {
  intent: string;
  requestedParams: Record<string, unknown>;
  autoApprove: boolean;
  autoExecute: boolean;
  /** The role of the caller asking for auto_approve: it covers only what that role may approve (min_role params). */
  autoApproveRole?: ApproverRole;
}

/** Fields a phase may change; jsonb values are given as plain values. */
export interface FlowPatch {
  status?: FlowStatus;
  dag_id?: string | null;
  run_id?: string | null;
  params?: Record<string, unknown>;
  /** The values the client typed as params (an answer to needs_input adds to them). */
  requested_params?: Record<string, unknown>;
  phases_completed?: Phase[];
  phases_skipped?: Phase[];
  summary?: string | null;
  next_steps?: string[];
  missing_params?: string[];
  error_message?: string | null;
  router?: Record<string, unknown>;
  approval?: Record<string, unknown> | null;
  warnings?: string[];
  /** The plan's placement preview (null: none). */
  placement?: object | null;
}

const JSON_FIELDS = ["params", "requested_params", "phases_completed", "phases_skipped", "next_steps", "missing_params", "router", "approval", "warnings", "placement"] as const;

/** Persistence of flows in Postgres: the source of truth both services read and write. */
export interface FlowStore {
  /**
   * With `createdBy`, the flow records it as its creator (who alone, with ops and above, answers or
   * cancels it), the `flow.created` audit event is written by the same statement, and flows
   * created while an earlier insert is in Postgres share one statement (group commit).
   */
  create(input: NewFlowInput, createdBy?: string): Promise<FlowRow>;
  get(flowId: string): Promise<FlowRow | undefined>;
  /** The flow or a 404 (flow_not_found). */
  require(flowId: string): Promise<FlowRow>;
  /**
   * Apply `patch`; with `expect`, only when the flow's status is one of them (compare-and-set, so a
   * cancel and an approval, or two orchestrators, cannot both win). Undefined when the guard failed.
   */
  update(flowId: string, patch: FlowPatch, expect?: readonly FlowStatus[]): Promise<FlowRow | undefined>;
  countByStatus(): Promise<Record<string, number>>;
  /** Flows in `statuses` not updated for `idleMs` (a lost queue job leaves them there). */
  listIdle(statuses: readonly FlowStatus[], idleMs: number, limit?: number): Promise<FlowRow[]>;
  /** Append an audit event (approvals, cancellations, runs created). */
  audit(actor: string, action: string, target: string, detail?: Record<string, unknown>): Promise<void>;
}

/** The FlowStore over the `flow` and `audit_event` tables. */
export function createFlowStore(db: Db): FlowStore {
  const get = (flowId: string) => selectFlow(db, flowId);
  const createAudited = groupedFlowCreate(db);

  return {
    async create(input, createdBy) {
      const values = [
        newFlowId(),
        newExecutionId(),
        input.intent,
        JSON.stringify(input.requestedParams),
        JSON.stringify(input.requestedParams),
        input.autoApprove,
        input.autoExecute,
        input.autoApprove && input.autoApproveRole ? JSON.stringify({ auto_approve_role: input.autoApproveRole }) : null,
      ];
      // With an actor (every intent): the flow and its audit event in one statement, shared with
      // the intents that arrive meanwhile (group commit).
      if (createdBy !== undefined) return createAudited({ values, actor: createdBy });
      const rows = await flowRows(db, CREATE_FLOW_SQL, values);
      if (!rows[0]) throw new Error("flow insert returned no row");
      return rows[0];
    },
    get,
    async require(flowId) {
      const row = await get(flowId);
      if (!row) throw new NotFoundError("flow_not_found", `Flow '${flowId}' not found`);
      return row;
    },
    async update(flowId, patch, expect) {
      const values: Record<string, unknown> = { ...patch };
      for (const k of JSON_FIELDS) if (patch[k] !== undefined) values[k] = patch[k] === null ? null : JSON.stringify(patch[k]);
      const columns = Object.keys(values).filter((k) => values[k] !== undefined);
      if (expect && !expect.length) return undefined; // no status is expected: nothing to update
      const params = [flowId, ...columns.map((c) => values[c]), ...(expect ?? [])];
      return (await flowRows(db, updateFlowSql(columns, expect?.length ?? 0), params))[0];
    },
    async countByStatus() {
      const rows = await db
        .selectFrom("flow")
        .select(["status", sql<number>`count(*)::int`.as("n")])
        .groupBy("status")
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
    async listIdle(statuses, idleMs, limit = 100) {
      return db
        .selectFrom("flow")
        .selectAll()
        .where("status", "in", [...statuses])
        .where("updated_at", "<", sql<Date>`now() - make_interval(secs => ${idleMs / 1000})`)
        .orderBy("updated_at")
        .limit(limit)
        .execute();
    },
    async audit(actor, action, target, detail = {}) {
      await db
        .insertInto("audit_event")
        .values({ actor, action, target, detail: JSON.stringify(detail) })
        .execute();
    },
  };
}
