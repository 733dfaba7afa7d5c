import { isDeepStrictEqual } from "node:util";
import type { DagDefinition, ParamRole } from "./types";

/** The roles a run can carry, lowest first (the API's roles). */
const RUN_ROLES = ["viewer", "user", "op", "admin"] as const;
export type RunRole = (typeof RUN_ROLES)[number];

/** Whether `have` (a role name; anything else reaches nothing) is `need` or above. */
export function roleReaches(have: string | null | undefined, need: RunRole): boolean {
  const i = RUN_ROLES.indexOf(have as RunRole);
  return i >= 0 && i >= RUN_ROLES.indexOf(need);
}

/** A param the caller set that only `minRole` and above may set. */
export interface RestrictedParam {
  name: string;
  minRole: ParamRole;
}

/**
 * The params in `conf` that carry `min_role` and differ from their default (giving the default
 * explicitly changes nothing, so it needs no role). Callers decide what a missing role means:
 * the REST API answers 403, a flow waits for an op's approval.
 */
export function restrictedParamsSet(def: Pick<DagDefinition, "params">, conf: Record<string, unknown>): RestrictedParam[] {
  const out: RestrictedParam[] = [];
  for (const [name, schema] of Object.entries(def.params)) {
    if (!schema.min_role || !Object.prototype.hasOwnProperty.call(conf, name)) continue;
    if (isDeepStrictEqual(conf[name], schema.default)) continue;
    out.push({ name, minRole: schema.min_role });
  }
  return out;
}
