import { z } from "zod";
import type { OperatorCatalog } from "@svc/dags";
import type { Operator, OperatorRegistry } from "../ports/operator";

const isTemplated = (v: unknown): boolean =>
  typeof v === "string" ? v.includes("{{") : Array.isArray(v) ? v.some(isTemplated) : v !== null && typeof v === "object" ? Object.values(v).some(isTemplated) : false;

/** A DAG validator's catalog over operators' argument schemas by name: what a registry checks, without the operators' code. */
export function createOperatorCatalog(argsByName: ReadonlyMap<string, z.ZodType>): Required<OperatorCatalog> {
  return {
    has: (name) => argsByName.has(name),
    names: () => [...argsByName.keys()].sort(),
    checkArgs(name, args) {
      const schema = argsByName.get(name);
      if (!schema) return [`unknown operator '${name}'`];
      return checkLiteralArgs(schema, args);
    },
  };
}

/** The engine's OperatorRegistry over `ops`, usable as the DAG validator's catalog. */
export function createOperatorRegistry(ops: Operator[]): OperatorRegistry {
  const byName = new Map(ops.map((o) => [o.name, o]));
  return { ...createOperatorCatalog(new Map(ops.map((o) => [o.name, o.args]))), get: (name) => byName.get(name) };
}

/**
 * Import-time check of a task's args: unknown keys, missing required keys, and every value that
 * holds no template. Templated values are checked after rendering, at run time.
 */
export function checkLiteralArgs(schema: z.ZodType, args: Record<string, unknown>): string[] {
  if (!(schema instanceof z.ZodObject)) {
    const r = schema.safeParse(args);
    return r.success || isTemplated(args) ? [] : r.error.issues.map((i) => `${i.path.join(".") || "args"}: ${i.message}`);
  }
  const shape = schema.shape as Record<string, z.ZodType>;
  const problems: string[] = [];
  for (const key of Object.keys(args)) {
    if (!(key in shape)) problems.push(`unknown argument '${key}' (allowed: ${Object.keys(shape).join(", ") || "none"})`);
  }
  for (const [key, field] of Object.entries(shape)) {
    const v = args[key];
    if (v === undefined) {
      if (!field.safeParse(undefined).success) problems.push(`missing required argument '${key}'`);
      continue;
    }
    if (isTemplated(v)) continue;
    const r = field.safeParse(v);
    if (!r.success) problems.push(`argument '${key}': ${r.error.issues.map((i) => i.message).join("; ")}`);
  }
  return problems;
}
