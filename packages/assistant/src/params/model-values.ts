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
    const stated = new RegExp(`(^|[^a-z0-9.-])${v.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^a-z0-9-])`).test(text);
    if (rule) warnings.push(`model value for ${k} dropped: ${rule}`);
    else if (!stated && k !== "image") warnings.push(`model value for ${k} dropped: the request does not give it`);
    else params[k] = v.toLowerCase();
  }
  return { params, warnings };
}
