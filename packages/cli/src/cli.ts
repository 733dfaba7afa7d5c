import { parseArgs } from "node:util";
import { isSvcError } from "@svc/errors";
import { dagsCommands } from "./commands/dags";
import { dbCommands } from "./commands/db";
import { tasksCommands } from "./commands/tasks";
import type { Command } from "./commands/types";
import { CliContext, type CliIo } from "./context";
import { CliError, databaseError, UsageError } from "./errors";
import { commandHelp, globalHelp, groupHelp } from "./help";
import { OUTPUT_FORMATS, type OutputFormat } from "./output";

export const COMMANDS: Command[] = [...dagsCommands, ...tasksCommands, ...dbCommands];

function parseCommandArgs(c: Command, argv: string[]) {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    output: { type: "string", short: "o" },
    help: { type: "boolean", short: "h" },
  };
  for (const o of c.options) options[o.name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]} (see svc-engine ${c.group} ${c.name} --help)`);
  }
}

async function dispatch(argv: string[], ctx: CliContext): Promise<number> {
  const [group, name, ...rest] = argv;
  if (!group || group === "-h" || group === "--help" || group === "help") return (ctx.io.stdout(globalHelp(COMMANDS)), 0);
  if (!COMMANDS.some((c) => c.group === group)) throw new UsageError(`unknown command group '${group}' (dags, tasks, db; see svc-engine --help)`);
  const g = group as Command["group"];
  if (!name || name === "-h" || name === "--help") return (ctx.io.stdout(groupHelp(g, COMMANDS)), name ? 0 : 2);
  const cmd = COMMANDS.find((c) => c.group === g && c.name === name);
  if (!cmd) throw new UsageError(`unknown command '${group} ${name}' (see svc-engine ${group} --help)`);
  const { values, positionals } = parseCommandArgs(cmd, rest);
  if (values.help) return (ctx.io.stdout(commandHelp(cmd)), 0);
  if (positionals.length < cmd.args.length)
    throw new UsageError(
      `missing ${cmd.args
        .slice(positionals.length)
        .map((a) => `<${a}>`)
        .join(" ")} (usage: svc-engine ${group} ${name} ${cmd.args.map((a) => `<${a}>`).join(" ")})`,
    );
  if (positionals.length > cmd.args.length) throw new UsageError(`unexpected argument '${positionals[cmd.args.length]}'`);
  const format = (values.output ?? "table") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`-o/--output must be one of ${OUTPUT_FORMATS.join(", ")}`);
  return cmd.run(ctx, { positionals, values: values, format });
}

/** Run the CLI on argv (without node and script); returns the exit code. Errors print one line. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const ctx = new CliContext(io);
  try {
    return await dispatch(argv, ctx);
  } catch (e) {
    const err = ctx.hasConfig() ? databaseError(e, ctx.config.databaseUrl) : e;
    if (err instanceof CliError) return (io.stderr(`error: ${err.message}\n`), err.exitCode);
    if (isSvcError(err)) return (io.stderr(`error: ${err.message}\n`), 1);
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await ctx.close();
  }
}
