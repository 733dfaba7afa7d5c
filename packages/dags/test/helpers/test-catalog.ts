import type { OperatorCatalog } from "../../src";

/** Arg names each test operator accepts (`?` suffix: optional). */
const OPERATORS: Record<string, string[]> = {
  noop: ["message?"],
  vm_create: ["name", "image?", "cpus?", "memory_mb?"],
  vm_delete: ["name"],
  ssh: ["host", "command", "timeout?"],
  sleep: ["seconds"],
};

/** A small operator catalog for parser tests: unknown and missing args, and cpus must be a number. */
export const testCatalog: OperatorCatalog = {
  has: (name) => Object.prototype.hasOwnProperty.call(OPERATORS, name),
  names: () => Object.keys(OPERATORS),
  checkArgs(name, args) {
    const spec = OPERATORS[name] ?? [];
    const names = spec.map((s) => s.replace("?", ""));
    const problems: string[] = [];
    for (const k of Object.keys(args)) if (!names.includes(k)) problems.push(`unknown argument '${k}'`);
    for (const s of spec) if (!s.endsWith("?") && args[s] === undefined) problems.push(`missing required argument '${s}'`);
    const cpus = args.cpus;
    if (cpus !== undefined && typeof cpus !== "number" && !(typeof cpus === "string" && cpus.includes("{{"))) problems.push("argument 'cpus': expected number");
    return problems;
  },
};
