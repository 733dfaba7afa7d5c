import { GIVEN_FIELD_RULES, brokenRule } from "./given-value-rules";

/**
 * A model's name-like values (VM, cluster, domain, image) are kept only when the request contains
 * them and they follow the field's rule: the model may read a name, never invent or repair one.
 */
export function keepGivenNamesOnly(intent: string, values: Record<string, unknown>): { params: Record<string, unknown>; warnings: string[] } {
  const text = intent.normalize("NFKC").toLowerCase();
  const params: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    if (!GIVEN_FIELD_RULES[k] || typeof v !== "string") {
      params[k] = v;
      continue;
    }
    const rule = brokenRule(k, v);
    // A whole word of the request: not a piece of a path ("../../etc/passwd" gives no name "etc").
    const stated = new RegExp(`(^|[^a-z0-9./\\\\-])${v.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^a-z0-9/\\\\-])`).test(text);
    if (rule) warnings.push(`model value for ${k} dropped: ${rule}`);
    else if (!stated && k !== "image") warnings.push(`model value for ${k} dropped: the request does not give it`);
    else params[k] = v.toLowerCase();
  }
  return { params, warnings };
}

/** The numbers the request states, with a GB also read as MiB (the model's memory_mb for "8GB" is 8192). */
function statedNumbers(text: string): Set<number> {
  const out = new Set<number>();
  for (const m of text.matchAll(/\d+(?:[.,]\d+)?/g)) {
    const n = Number(m[0].replace(",", "."));
    out.add(n);
    out.add(Math.round(n * 1024));
  }
  return out;
}

/**
 * A model's other values are kept only when the request states them: a number it contains (a GB
 * also as MiB), a word it contains, each item of a list. A value it does not state (a size, a
 * flag, a list the model made up) is dropped with a warning, and the workflow's default applies:
 * the model may read what the user said, never add to it. Keys `stated` holds are the offline
 * reading's and are left to it.
 */
export function keepStatedValuesOnly(intent: string, values: Record<string, unknown>, stated: Record<string, unknown>): { params: Record<string, unknown>; warnings: string[] } {
  const text = intent.normalize("NFKC").toLowerCase();
  const numbers = statedNumbers(text);
  const says = (s: string) => new RegExp(`(^|[^a-z0-9])${s.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^a-z0-9])`).test(text);
  const isStated = (v: unknown): boolean =>
    typeof v === "number" ? numbers.has(v) : typeof v === "string" ? v === "" || says(v) : Array.isArray(v) ? v.length > 0 && v.every(isStated) : false;
  const params: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    // Names were judged by keepGivenNamesOnly; an image the request does not name is the model's.
    if ((GIVEN_FIELD_RULES[k] && k !== "image") || k in stated || isStated(v)) params[k] = v;
    else warnings.push(`model value for ${k} dropped: the request does not state ${JSON.stringify(v)}`);
  }
  return { params, warnings };
}
