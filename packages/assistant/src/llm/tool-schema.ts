import type { ParamSchema } from "@svc/dags";
import type { RouterCatalogEntry } from "../types";

/** An OpenAI function tool definition. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Tool the model calls when no candidate fits. */
export const NONE_TOOL = "none_of_these";

/** Operator settings: they come from configuration, so the model never sees them as arguments. */
export const SETTING_NAMES: ReadonlySet<string> = new Set([
  "playbooks_dir",
  "secrets_file",
  "pull_secret_path",
  "inventory_dir",
  "vault_password_file",
  "ssh_user",
  "ssh_host",
  "ssh_port",
  "ssh_key_path",
  "known_hosts",
  "vm_images_dir",
]);

const KEPT = ["type", "description", "enum", "pattern", "minimum", "maximum", "items", "minLength", "maxLength", "format"];

/** A param schema as the model sees it: no defaults (they may be templates), only checkable keywords. */
function modelSchema(schema: ParamSchema): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => KEPT.includes(k)));
}

/** Function names allow [a-zA-Z0-9_-] only; dag_ids may also hold dots. */
export function toolNameOf(dagId: string): string {
  return dagId.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

/** One tool per candidate DAG (its params as arguments) plus the "none of these" tool. */
export function buildRoutingTools(candidates: readonly RouterCatalogEntry[]): FunctionTool[] {
  const tools: FunctionTool[] = candidates.map((e) => ({
    type: "function",
    function: {
      name: toolNameOf(e.dag_id),
      description: `Run workflow ${e.dag_id}: ${e.description ?? ""}`.slice(0, 1000),
      parameters: {
        type: "object",
        properties: Object.fromEntries(
          Object.entries(e.params)
            .filter(([k]) => !SETTING_NAMES.has(k))
            .map(([k, s]) => [k, modelSchema(s)]),
        ),
        additionalProperties: false,
      },
    },
  }));
  tools.push({
    type: "function",
    function: {
      name: NONE_TOOL,
      description: "None of the workflows fits the request, or the request is not about infrastructure.",
      parameters: { type: "object", properties: { reason: { type: "string" } }, additionalProperties: false },
    },
  });
  return tools;
}
