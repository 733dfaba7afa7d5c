import type { ParamSchema } from "@svc/dags";
import type { InputRequest, RouterCatalogEntry } from "../types";
import type { ExtractedValues } from "./extract-params";
import { paramsForDag } from "./extract-params";
import { GIVEN_FIELD_RULES, questionFor } from "./given-value-rules";
import { imageForOs } from "./os-images";
import { validateParams } from "./validate-params";

/** Params for one DAG, and what must be asked before it can run. */
export interface SettledParams {
  params: Record<string, unknown>;
  warnings: string[];
  /** Empty when the route is ready. */
  input: InputRequest[];
}

/** A question for a param from its schema: description and range ("Virtual CPUs? (1 to 64)"). */
export function questionForSchema(field: string, schema: ParamSchema | undefined, rule: string): string {
  if (GIVEN_FIELD_RULES[field]) return questionFor(field);
  const s = (schema ?? {}) as Record<string, unknown>;
  // A value outside a pattern ("3.11" for an OpenShift 4.x version): say what is offered, and the default.
  if (typeof s.pattern === "string" && typeof s.description === "string") {
    const fallback = typeof s.default === "string" && s.default !== "" && !s.default.includes("{{") ? `; the default is ${s.default}` : "";
    return `Which value should ${field} have? Offered: ${s.description.replace(/\s+/g, " ").trim()}${fallback}.`;
  }
  // A value outside a list ("artifactory" for a registry type): name what is offered, and the default.
  if (Array.isArray(s.enum)) {
    const fallback = typeof s.default === "string" && s.default !== "" && !s.default.includes("{{") ? `; the default is ${s.default}` : "";
    const about = typeof s.description === "string" ? ` (${s.description.replace(/\s+/g, " ").trim()})` : "";
    return `Which value should ${field} have? Offered: ${s.enum.join(", ")}${fallback}${about}.`;
  }
  const what = typeof s.description === "string" ? s.description.split(/[.;(]/)[0]!.trim() : field;
  const range =
    typeof s.minimum === "number" && typeof s.maximum === "number" ? ` (${s.minimum} to ${s.maximum})` : Array.isArray(s.enum) ? ` (one of ${s.enum.join(", ")})` : ` (${rule})`;
  return `Which value should ${field} have: ${what}?${range}`;
}

/** True when the DAG's name param has no usable default: a delete must be told which one. */
function nameHasNoDefault(schema: ParamSchema | undefined): boolean {
  if (!schema) return false;
  const d = (schema as { default?: unknown }).default;
  return d === undefined || d === "";
}

/**
 * The declared values that pass the DAG's schema; given values that break a rule (or the schema),
 * and a delete without a name, become input requests rather than warnings or defaults.
 */
export function settleParams(entry: RouterCatalogEntry, extracted: ExtractedValues, implied: Record<string, unknown> = {}, opts: { anyImage?: boolean } = {}): SettledParams {
  const declared = Object.keys(entry.params);
  const merged: Record<string, unknown> = { ...extracted.values, ...Object.fromEntries(Object.entries(implied).filter(([k]) => extracted.values[k] === undefined)) };
  const input: InputRequest[] = extracted.issues.filter((i) => declared.includes(i.field));
  if (extracted.os && declared.includes("image")) {
    const d = (entry.params.image as { default?: unknown }).default;
    const os = imageForOs(extracted.os, { anyImage: opts.anyImage ?? false, defaultImage: typeof d === "string" ? d : undefined });
    merged.image = os.image;
    if (os.issue) input.push(os.issue);
  }
  const result = validateParams(entry.params, paramsForDag(merged, declared));
  for (const e of result.errors) {
    if (input.some((i) => i.field === e.field)) continue;
    const given = typeof e.value === "string" ? e.value : JSON.stringify(e.value);
    input.push({ field: e.field, rule: e.rule, question: questionForSchema(e.field, entry.params[e.field], e.rule), given });
  }
  const nameField = declared.includes("vm_name") ? "vm_name" : undefined;
  if (
    nameField &&
    result.params.action === "delete" &&
    result.params[nameField] === undefined &&
    nameHasNoDefault(entry.params[nameField]) &&
    !input.some((i) => i.field === nameField)
  ) {
    input.push({ field: nameField, rule: "deleting needs the name of the VM to delete", question: "Which VM should be deleted? (its name)" });
  }
  return { params: result.params, warnings: result.warnings, input };
}
