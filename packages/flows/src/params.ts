import { validateParams, type DagDefinition, type ParamError } from "@svc/dags";

/** Params for a run: explicit ones win over extracted ones; the DAG's schema decides. */
export interface ResolvedParams {
  ok: boolean;
  /** With ok: every param with defaults applied. Otherwise the values kept so far (no defaults). */
  params: Record<string, unknown>;
  /** Required params that nobody supplied. */
  missing: string[];
  /** Explicit params the schema rejects: a client error naming each field. */
  invalid: ParamError[];
  /** Extracted values that were dropped (the client did not type them as params). */
  warnings: string[];
}

const topKey = (field: string) => field.split(/[.[]/)[0] ?? field;

/**
 * Merge extracted and explicit params and validate them against the DAG. An explicit value that
 * fails is an error; an extracted value that fails is dropped with a warning; a missing required
 * param is reported as missing.
 */
export function resolveParams(def: DagDefinition, extracted: Record<string, unknown>, explicit: Record<string, unknown>): ResolvedParams {
  const merged: Record<string, unknown> = { ...extracted, ...explicit };
  const warnings: string[] = [];
  const explicitKeys = new Set(Object.keys(explicit));
  // Two passes at most: the second runs after dropping bad extracted values.
  for (let pass = 0; pass < 3; pass++) {
    const r = validateParams(def, merged);
    if (r.ok) return { ok: true, params: r.params, missing: [], invalid: [], warnings };
    const missing: string[] = [];
    const invalid: ParamError[] = [];
    let dropped = false;
    for (const e of r.errors) {
      const key = topKey(e.field);
      if (e.message === "is required" && merged[key] === undefined) missing.push(key);
      else if (explicitKeys.has(key)) invalid.push(e);
      else if (key in merged) {
        delete merged[key];
        warnings.push(`param ${key} dropped: ${e.message}`);
        dropped = true;
      } else invalid.push(e);
    }
    if (!dropped || pass === 2) return { ok: false, params: merged, missing: [...new Set(missing)], invalid, warnings };
  }
  return { ok: false, params: merged, missing: [], invalid: [], warnings };
}
