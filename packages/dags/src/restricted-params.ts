import { isDeepStrictEqual } from "node:util";
import { cidrSpanExceeded } from "./cidr-span";
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
  /** The values set that need minRole (min_role_values, min_role_cidr_span), when those decide it. */
  values?: string[];
  /** Why those values need it, when it is not the values themselves (`more IPv4 addresses than a /8`). */
  why?: string;
}
const ROLE_RANK: readonly ParamRole[] = ["user", "op", "admin"];

/**
 * The params in `conf` that carry `min_role` and differ from their default (giving the default
 * explicitly changes nothing, so it needs no role). Callers decide what a missing role means:
 * the REST API answers 403, a flow waits for an op's approval.
 */
export function restrictedParamsSet(def: Pick<DagDefinition, "params">, conf: Record<string, unknown>): RestrictedParam[] {
  const out: RestrictedParam[] = [];
  for (const [name, schema] of Object.entries(def.params)) {
    if (!Object.prototype.hasOwnProperty.call(conf, name) || isDeepStrictEqual(conf[name], schema.default)) continue;
    // The highest role the values set need (min_role_values), or the param's own min_role.
    const v = conf[name];
    const held = Object.entries(schema.min_role_values ?? {}).filter(([x]) => (Array.isArray(v) ? v.includes(x) : v === x));
    // A span passed by values min_role_values already names adds nothing to say (0.0.0.0/0 alone).
    const wide = schema.min_role_cidr_span ? cidrSpanExceeded(schema.min_role_cidr_span, v) : null;
    const span = wide && !wide.values.every((x) => held.some(([h]) => h === x)) ? wide : null;
    const need = [schema.min_role, ...held.map(([, r]) => r), span?.role].filter((r): r is ParamRole => !!r).sort((a, b) => ROLE_RANK.indexOf(b) - ROLE_RANK.indexOf(a))[0];
    const values = [...new Set([...held.map(([x]) => x), ...(span?.values ?? [])])];
    if (need) out.push({ name, minRole: need, ...(values.length ? { values } : {}), ...(span ? { why: span.why } : {}) });
  }
  return out;
}

/** `<prefix>.allow_from holding 0.0.0.0/0` or `<prefix>.force`: what a RestrictedParam's role is for, in words. */
export const restrictedWhat = (p: RestrictedParam, prefix: string): string =>
  `${prefix}.${p.name}${p.values?.length ? ` holding ${p.values.join(", ")}` : ""}${p.why ? ` (${p.why})` : ""}`;
