import { sql } from "kysely";
import type { Db, FlowRow } from "@svc/db";
import { NotFoundError } from "@svc/errors";
import type { FlowStatus, Phase } from "./flow-status";
import { newExecutionId, newFlowId } from "./ids";

/** What a new flow starts from: the request as the client sent it. */
export interface NewFlowInput {
  intent: string;
  requestedParams: Record<string, unknown>;
  autoApprove: boolean;
  autoExecute: boolean;
  /** The role of the caller asking for auto_approve: it covers only what that role may approve (min_role params). */
  autoApproveRole?: "op" | "admin";
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
}

const JSON_FIELDS = ["params", "requested_params", "phases_completed", "phases_skipped", "next_steps", "missing_params", "router", "approval", "warnings"] as const;

/** Persistence of flows in Postgres: the source of truth both services read and write. */
export interface FlowStore {
  /** With `createdBy`, the `flow.created` audit event is written by the same statement. */
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
  const get = (flowId: string) => db.selectFrom("flow").selectAll().where("flow_id", "=", flowId).executeTakeFirst();

  return {
    async create(input, createdBy) {
      const insert = db
        .insertInto("flow")
        .values({
          flow_id: newFlowId(),
          execution_id: newExecutionId(),
          intent: input.intent,
          params: JSON.stringify(input.requestedParams),
          requested_params: JSON.stringify(input.requestedParams),
          status: "pending",
          auto_approve: input.autoApprove,
          auto_execute: input.autoExecute,
          approval: input.autoApprove && input.autoApproveRole ? JSON.stringify({ auto_approve_role: input.autoApproveRole }) : null,
          router: "{}",
          phases_completed: "[]",
          phases_skipped: "[]",
          next_steps: "[]",
          missing_params: "[]",
        })
        .returningAll();
      if (createdBy === undefined) return insert.executeTakeFirstOrThrow();
      // One round trip for the flow and its audit event (every intent writes both).
      return db
        .with("f", () => insert)
        .with("a", (q) =>
          q
            .insertInto("audit_event")
            .columns(["actor", "action", "target", "detail"])
            .expression((eb) =>
              eb
                .selectFrom("f")
                .select([sql<string>`${createdBy}::text`.as("actor"), sql<string>`'flow.created'`.as("action"), "f.flow_id", sql<string>`'{}'::jsonb`.as("detail")]),
            ),
        )
        .selectFrom("f")
        .selectAll()
        .executeTakeFirstOrThrow();
    },
    get,
    async require(flowId) {
      const row = await get(flowId);
      if (!row) throw new NotFoundError("flow_not_found", `Flow '${flowId}' not found`);
      return row;
    },
    async update(flowId, patch, expect) {
      const values: Record<string, unknown> = { ...patch, updated_at: sql`now()` };
      for (const k of JSON_FIELDS) if (patch[k] !== undefined) values[k] = patch[k] === null ? null : JSON.stringify(patch[k]);
      let q = db.updateTable("flow").set(values).where("flow_id", "=", flowId);
      if (expect) q = q.where("status", "in", [...expect]);
      return q.returningAll().executeTakeFirst();
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
