import type { CliContext } from "../context";
import type { OutputFormat } from "../output";

export interface OptionSpec {
  name: string;
  short?: string;
  type: "string" | "boolean";
  /** Placeholder shown in help, e.g. JSON. */
  value?: string;
  description: string;
}

export interface CommandInput {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  format: OutputFormat;
}

/** One `svc-engine <group> <name>` command. */
export interface Command {
  group: "dags" | "tasks" | "db";
  name: string;
  summary: string;
  /** Required positional arguments, by name. */
  args: string[];
  options: OptionSpec[];
  /** Returns the exit code. */
  run(ctx: CliContext, input: CommandInput): Promise<number>;
}
