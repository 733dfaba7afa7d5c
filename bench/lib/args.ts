import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * A benchmark's command line: `--help` (or `-h`) prints `usage` and exits 0; an unknown or
 * malformed option gets one line and the usage on stderr and exits 2, instead of a stack trace.
 */
export function benchArgs<const T extends Options>(name: string, usage: string, options: T): ReturnType<typeof parseArgs<{ options: T }>>["values"] {
  const withHelp = { ...options, help: { type: "boolean", short: "h" } } as const;
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ options: withHelp }).values;
  } catch (e) {
    process.stderr.write(`${name}: ${(e as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as ReturnType<typeof parseArgs<{ options: T }>>["values"];
}
