import { createHash } from "node:crypto";
import type { ErrorObject, ValidateFunction } from "ajv";
import { ParamsInvalidError } from "@svc/errors";
import { canonicalJson } from "./hash";
import { compileUncached } from "./params-ajv";
import { renderArgs, setOwn } from "./template/render";
import type { DagDefinition, ParamSchema } from "./types";

/** One failing param, e.g. `{ field: "vm_name", message: 'must match pattern "^[a-z]..."' }`. */
export interface ParamError {
  field: string;
  message: string;
}

/** Outcome of validateParams: params with defaults applied, or every failing field. */
export type ParamsValidation = { ok: true; params: Record<string, unknown> } | { ok: false; errors: ParamError[] };

const CACHE_LIMIT = 500;
const byParamsHash = new Map<string, ValidateFunction>();
const byDag = new WeakMap<DagDefinition, ValidateFunction>();

/**
 * Validate run params (`conf`) against the DAG's params schema: unknown keys rejected, params
 * without default required, defaults applied. `conf` is not modified.
 */
export function validateParams(dag: DagDefinition, conf: unknown, settings?: Record<string, string>): ParamsValidation {
  if (conf === null || conf === undefined) conf = {};
  if (typeof conf !== "object" || Array.isArray(conf)) return { ok: false, errors: [{ field: "conf", message: "must be an object of params" }] };
  const validate = validatorFor(settings ? withSettingsDefaults(dag, settings) : dag);
  const params = structuredClone(conf) as Record<string, unknown>;
  if (validate(params)) return { ok: true, params };
  return { ok: false, errors: toParamErrors(validate.errors ?? [], Object.keys(dag.params)) };
}

/** A ParamsInvalidError whose message lists every field ("vm_name: must match ...; cpus: must be integer"). */
export function paramsInvalidError(dagId: string, errors: ParamError[]): ParamsInvalidError {
  const list = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
  return new ParamsInvalidError(`invalid params for DAG '${dagId}': ${list}`, errors);
}

/**
 * parseDagFile already resolves `{{ settings.<key> }}` in defaults; this covers definitions built
 * elsewhere. Returns the same object when nothing is templated, so the per-DAG cache still hits.
 */
function withSettingsDefaults(dag: DagDefinition, settings: Record<string, string>): DagDefinition {
  const templated = Object.values(dag.params).some((p) => Object.prototype.hasOwnProperty.call(p, "default") && JSON.stringify(p.default ?? null).includes("{{"));
  if (!templated) return dag;
  const ctx: Record<string, unknown> = { settings: { ...settings } };
  const params: Record<string, ParamSchema> = {};
  for (const [name, p] of Object.entries(dag.params)) {
    setOwn(params, name, Object.prototype.hasOwnProperty.call(p, "default") ? { ...p, default: renderArgs({ d: p.default }, ctx).d } : p);
  }
  return { ...dag, params };
}

/** validateParams, throwing ParamsInvalidError instead of returning errors. */
export function assertValidParams(dag: DagDefinition, conf: unknown): Record<string, unknown> {
  const r = validateParams(dag, conf);
  if (!r.ok) throw paramsInvalidError(dag.dag_id, r.errors);
  return r.params;
}

/** The JSON Schema of a DAG's whole params object. */
export function paramsObjectSchema(dag: Pick<DagDefinition, "params" | "required_params">): Record<string, unknown> {
  return { type: "object", properties: dag.params, required: dag.required_params, additionalProperties: false };
}

function validatorFor(dag: DagDefinition): ValidateFunction {
  const known = byDag.get(dag);
  if (known) return known;
  const schema = paramsObjectSchema(dag);
  // Keyed by the params part only: a change elsewhere in the DAG keeps the compiled validator.
  const key = createHash("sha256").update(canonicalJson(schema)).digest("hex");
  let validate = byParamsHash.get(key);
  if (validate) byParamsHash.delete(key);
  else validate = compileUncached(structuredClone(schema));
  byParamsHash.set(key, validate);
  if (byParamsHash.size > CACHE_LIMIT) byParamsHash.delete(byParamsHash.keys().next().value as string);
  byDag.set(dag, validate);
  return validate;
}

function toParamErrors(errors: ErrorObject[], allowed: string[]): ParamError[] {
  const out: ParamError[] = [];
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    let field = instanceField(e.instancePath);
    let message = e.message ?? "is invalid";
    if (e.keyword === "required") {
      field = joinField(field, String(p.missingProperty));
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      field = joinField(field, String(p.additionalProperty));
      message = field.includes(".") || field.includes("[") ? "is not allowed" : `unknown param (allowed: ${allowed.join(", ") || "none"})`;
    } else if (e.keyword === "enum") {
      message = `must be one of ${(p.allowedValues as unknown[]).map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")}`;
    }
    if (!out.some((o) => o.field === field && o.message === message)) out.push({ field: field || "conf", message });
  }
  return out;
}

function instanceField(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((acc, s) => (/^\d+$/.test(s) && acc ? `${acc}[${s}]` : joinField(acc, s)), "");
}

function joinField(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}
