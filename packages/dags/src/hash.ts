import { createHash } from "node:crypto";
import type { DagDefinition } from "./types";

/** JSON with object keys sorted at every level, so equal data always gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) Object.defineProperty(out, k, { value: sortKeys(x), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

/** sha256 (hex) of the DAG definition's canonical JSON: changes exactly when the definition does. */
export function dagHash(def: DagDefinition): string {
  return createHash("sha256").update(canonicalJson(def)).digest("hex");
}
