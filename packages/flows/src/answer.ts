import { brokenRule, valueHasShellSyntax } from "@svc/assistant";
import { paramsInvalidError, type ParamError } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import { BadRequestError, ConflictError } from "@svc/errors";
import { loadCatalogue } from "./catalogue";
import { assertFlowOwner, type FlowCaller } from "./decisions";
import type { FlowStore } from "./flow-store";
import { resolveParams } from "./params";

/** What the user answers to a flow in needs_input: one value for the single open field, or params. */
export interface FlowAnswer {
  answer?: string;
  params?: Record<string, unknown>;
}

/** A typed answer converted to the param's schema type ("8" → 8 for an integer, "no" → false). */
function typed(schema: { type?: unknown } | undefined, value: string): unknown {
  const v = value.trim();
  if (schema?.type === "integer" || schema?.type === "number") return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  if (schema?.type === "boolean") return /^(yes|true|y|on|1)$/i.test(v) ? true : /^(no|false|n|off|0)$/i.test(v) ? false : v;
  return v;
}

/** Checks an answered name as typed: a name that breaks a rule is refused, never repaired. */
function nameErrors(values: Record<string, unknown>): ParamError[] {
  const errors: ParamError[] = [];
  for (const [field, v] of Object.entries(values)) {
    if (typeof v !== "string") continue;
    if (valueHasShellSyntax(v)) errors.push({ field, message: `${field} must not contain shell syntax` });
    else {
      const rule = brokenRule(field, v);
      if (rule) errors.push({ field, message: rule });
    }
  }
  return errors;
}

/**
 * Answer a flow waiting in needs_input, as its creator or an op (403 for anyone else): only the
 * params it asks for (missing_params) are taken, and the values are checked by the same rules as
 * the intent's and by the DAG's schema (a 400 naming the field leaves the flow as it was), then the
 * flow returns to planning with them as explicit params; the orchestrator resumes at validation.
 */
export async function answerFlow(
  deps: { store: FlowStore; engine: Pick<EngineApi, "listDagDefinitions"> },
  flowId: string,
  caller: FlowCaller,
  input: FlowAnswer,
): Promise<FlowRow> {
  const { actor } = caller;
  const current = await deps.store.require(flowId);
  assertFlowOwner(current, caller, "answer");
  if (current.status !== "needs_input") throw new ConflictError(`Flow ${flowId} is ${current.status}; only a flow in needs_input can be answered`);
  const asked = current.missing_params ?? [];
  // An answer gives what the flow asked for, nothing else: any other param (a reserved one such as
  // force_foreign) would be re-planned under the creator's auto_approve.
  const notAsked = Object.keys(input.params ?? {}).filter((k) => !asked.includes(k));
  if (notAsked.length) {
    throw paramsInvalidError(
      current.dag_id ?? "(none)",
      notAsked.map((field) => ({ field, message: `${field} was not asked for: this flow asks only for ${asked.join(", ") || "(nothing)"}` })),
    );
  }
  const open = asked.filter((f) => input.params?.[f] === undefined);
  const dag = (await loadCatalogue(deps.engine)).find((d) => d.dag_id === current.dag_id);
  if (!dag) throw new ConflictError(`DAG ${current.dag_id} is no longer in the catalogue; send the intent again`);
  // Answers typed as text ("8", "no") take the param's schema type; other values are kept as given.
  const schemaOf = (k: string) => dag.definition.params[k] as { type?: unknown } | undefined;
  const values: Record<string, unknown> = Object.fromEntries(Object.entries(input.params ?? {}).map(([k, v]) => [k, typeof v === "string" ? typed(schemaOf(k), v) : v]));
  if (input.answer !== undefined) {
    if (open.length !== 1) throw new BadRequestError(`An answer gives one value; give params for: ${open.join(", ") || "(nothing is open)"}`, { field: "answer" });
    values[open[0]!] = typed(schemaOf(open[0]!), input.answer);
  }
  for (const [k, v] of Object.entries(values)) if (typeof v === "string" && brokenRule(k, v) === null && /[A-Z]/.test(v)) values[k] = v.toLowerCase();
  const explicit = { ...(current.requested_params ?? {}), ...values };
  const errors = nameErrors(values);
  const resolved = resolveParams(dag.definition, current.params ?? {}, explicit);
  const invalid = [...errors, ...resolved.invalid.filter((e) => !errors.some((x) => x.field === e.field))];
  if (invalid.length) throw paramsInvalidError(dag.dag_id, invalid);
  const phases = current.phases_completed ?? [];
  const row = await deps.store.update(
    flowId,
    {
      status: "planning",
      requested_params: explicit,
      missing_params: [],
      next_steps: [],
      phases_completed: phases.includes("dag_discovery") ? ["dag_discovery"] : [],
      summary: `Answered ${Object.keys(values).join(", ")}; resuming.`,
    },
    ["needs_input"],
  );
  if (!row) throw new ConflictError(`Flow ${flowId} changed while it was being answered`);
  await deps.store.audit(actor, "flow.answered", flowId, { dag_id: row.dag_id, fields: Object.keys(values) });
  return row;
}
