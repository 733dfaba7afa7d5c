import { CompiledQuery } from "kysely";
import { prepared, type Db, type FlowRow } from "@svc/db";

// The flow statements every intent runs (create, read, phase updates), written once as SQL text
// with parameters: building them with the query builder cost more CPU than Postgres spent on them.
// Kysely still runs them (same pool, same error path); only the compile step is skipped. Each is
// a named statement (prepared): parsed and planned once per connection.

/** The insert, its creator (`created_by`) given as `creator`. */
const insertFlow = (
  creator: string,
) => `insert into "flow" ("flow_id", "execution_id", "intent", "params", "requested_params", "status", "auto_approve", "auto_execute", "approval", "router", "phases_completed", "phases_skipped", "next_steps", "missing_params", "created_by")
  values ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, '{}', '[]', '[]', '[]', '[]', ${creator}) returning *`;

/** The insert alone (no creator), and with its `flow.created` audit event in the same statement ($9: the actor, its creator). */
export const CREATE_FLOW_SQL = prepared(insertFlow("null"));
export const CREATE_FLOW_AUDITED_SQL = prepared(`with "f" as (${insertFlow("$9::text")}),
  "a" as (insert into "audit_event" ("actor", "action", "target", "detail") select $9::text, 'flow.created', "f"."flow_id", '{}'::jsonb from "f")
  select * from "f"`);

const GET_FLOW_SQL = prepared(`select * from "flow" where "flow_id" = $1`);

/** Run a statement text with its parameters through kysely, rows typed as flows. */
export async function flowRows(db: Db, text: string, params: readonly unknown[]): Promise<FlowRow[]> {
  return (await db.executeQuery<FlowRow>(CompiledQuery.raw(text, [...params]))).rows;
}

/** One flow by id, or undefined. */
export async function selectFlow(db: Db, flowId: string): Promise<FlowRow | undefined> {
  return (await flowRows(db, GET_FLOW_SQL, [flowId]))[0];
}

// An update's text depends only on which columns it sets and how many statuses it expects.
const updateTexts = new Map<string, string>();
const COLUMN = /^[a-z_]+$/;

/**
 * `update flow set <columns>, updated_at = now() where flow_id = $1 [and status in (...)] returning *`
 * for these columns (values given as they are sent: jsonb as JSON text), the text cached per shape.
 */
export function updateFlowSql(columns: readonly string[], expected: number): string {
  const key = `${columns.join(",")}|${expected}`;
  let text = updateTexts.get(key);
  if (text === undefined) {
    for (const c of columns) if (!COLUMN.test(c)) throw new Error(`not a flow column: ${c}`);
    const set = columns.map((c, i) => `"${c}" = $${i + 2}`);
    const statuses = Array.from({ length: expected }, (_, i) => `$${columns.length + 2 + i}`);
    const guard = expected ? ` and "status" in (${statuses.join(", ")})` : "";
    text = prepared(`update "flow" set ${[...set, `"updated_at" = now()`].join(", ")} where "flow_id" = $1${guard} returning *`);
    updateTexts.set(key, text);
  }
  return text;
}

/**
 * Many new flows, each with its `flow.created` audit event, in one statement (one round trip and one
 * commit): the rows come as parallel arrays ($1..$9: flow id, execution id, intent, params,
 * requested params, auto_approve, auto_execute, approval, actor: also the flow's creator). Rows come back in no set order.
 */
export const CREATE_FLOWS_AUDITED_SQL = prepared(`with "i" as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::bool[], $7::bool[], $8::jsonb[], $9::text[])
      as "t" ("flow_id", "execution_id", "intent", "params", "requested_params", "auto_approve", "auto_execute", "approval", "actor")),
  "f" as (insert into "flow" ("flow_id", "execution_id", "intent", "params", "requested_params", "status", "auto_approve", "auto_execute", "approval", "router", "phases_completed", "phases_skipped", "next_steps", "missing_params", "created_by")
    select "flow_id", "execution_id", "intent", "params", "requested_params", 'pending', "auto_approve", "auto_execute", "approval", '{}', '[]', '[]', '[]', '[]', "actor" from "i" returning *),
  "a" as (insert into "audit_event" ("actor", "action", "target", "detail") select "i"."actor", 'flow.created', "f"."flow_id", '{}'::jsonb from "f" join "i" using ("flow_id"))
  select * from "f"`);
