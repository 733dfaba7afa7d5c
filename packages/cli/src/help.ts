import type { Command } from "./commands/types";

const GROUPS: Record<Command["group"], string> = {
  dags: "Manage DAGs and their runs",
  tasks: "Inspect task instances",
  db: "Manage the metadata database",
};

export const OUTPUT_HELP = `  ${"-o, --output FORMAT".padEnd(26)} table (default), json, yaml or plain`;

const usageOf = (c: Command) => `svc-engine ${c.group} ${c.name}${c.args.map((a) => ` <${a}>`).join("")}${c.options.length ? " [options]" : ""}`;

/** Help for the whole CLI. */
export function globalHelp(commands: Command[]): string {
  const lines = ["Usage: svc-engine <group> <command> [args] [options]", "", "Engine CLI (Airflow 2 style). Reads DATABASE_URL, REDIS_URL, SVC_REDIS_PREFIX, SVC_DAGS_DIR.", ""];
  for (const g of Object.keys(GROUPS) as Command["group"][]) {
    lines.push(`${g}: ${GROUPS[g]}`);
    for (const c of commands.filter((x) => x.group === g)) lines.push(`  ${`${c.group} ${c.name}`.padEnd(26)} ${c.summary}`);
    lines.push("");
  }
  lines.push("Run `svc-engine <group> <command> --help` for a command's options.");
  return lines.join("\n") + "\n";
}

/** Help for one group. */
export function groupHelp(group: Command["group"], commands: Command[]): string {
  const lines = [`Usage: svc-engine ${group} <command> [args] [options]`, "", GROUPS[group], ""];
  for (const c of commands.filter((x) => x.group === group)) lines.push(`  ${c.name.padEnd(20)} ${c.summary}`);
  return lines.join("\n") + "\n";
}

/** Help for one command. */
export function commandHelp(c: Command): string {
  const lines = [`Usage: ${usageOf(c)}`, "", c.summary, "", "Options:"];
  for (const o of c.options) {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${o.name}${o.value ? ` ${o.value}` : ""}`;
    lines.push(`  ${flag.padEnd(26)} ${o.description}`);
  }
  lines.push(OUTPUT_HELP, `  ${"-h, --help".padEnd(26)} show this help`);
  return lines.join("\n") + "\n";
}
