import { z } from "zod";

export const USAGE = `Usage: svc-plugins <command> [options]

Commands:
  list [-o table|json]                      the OS plugins, and which one fits this host
  info --plugin NAME [-o table|json]        what a plugin checks and changes, its settings
  deploy --plugin NAME [--dry-run] [--yes] [--host USER@HOST[:PORT]] [-o table|json]
                                            bring the host to the plugin's desired state

Options:
  --plugin NAME    an OS plugin (see list)
  --dry-run        print the plan; change nothing
  --yes            apply without asking (needed without a terminal)
  --host USER@HOST[:PORT]
                   deploy over SSH (port default SVC_SSH_PORT; key SVC_SSH_KEY_PATH; the host
                   key must already be pinned in SVC_SSH_KNOWN_HOSTS, default ~/.ssh/known_hosts)
  -o, --output     table (default) or json
  -h, --help       this help

Settings: SVC_VM_IMAGES_DIR, SVC_ASSISTANT_PORT, SVC_WEB_UI_PORT, SVC_LIBVIRT_POOL,
SVC_LIBVIRT_POOL_DIR, SVC_LIBVIRT_NETWORK.
`;

const HOST_RE = /^([a-z_][a-z0-9_.-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]*)(?::(\d{1,5}))?$/;
const hostSchema = z
  .string()
  .regex(HOST_RE, "--host takes USER@HOST or USER@HOST:PORT (a user name, a host name or IPv4 address)")
  .refine((v) => Number(HOST_RE.exec(v)?.[3] ?? 22) <= 65535 && Number(HOST_RE.exec(v)?.[3] ?? 22) > 0, "--host: the port must be 1-65535");

export interface ParsedArgs {
  command: "list" | "info" | "deploy" | "help";
  plugin?: string;
  dryRun: boolean;
  yes: boolean;
  host?: { user: string; host: string; port?: number };
  output: "table" | "json";
}

/** A usage error: exit status 2 with the message and the usage. */
export class UsageError extends Error {}

/** Parse argv; throws UsageError on anything unknown or malformed. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const [command, ...rest] = argv;
  const out: ParsedArgs = { command: "help", dryRun: false, yes: false, output: "table" };
  if (command === undefined || command === "-h" || command === "--help" || command === "help") return out;
  if (command !== "list" && command !== "info" && command !== "deploy") throw new UsageError(`unknown command: ${command}`);
  out.command = command;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = () => {
      const v = rest[++i];
      if (v === undefined || v.startsWith("-")) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === "--plugin") out.plugin = value();
    else if (a === "-o" || a === "--output") {
      const v = value();
      if (v !== "table" && v !== "json") throw new UsageError(`-o takes table or json, not ${v}`);
      out.output = v;
    } else if (a === "--dry-run" && command === "deploy") out.dryRun = true;
    else if (a === "--yes" && command === "deploy") out.yes = true;
    else if (a === "--host" && command === "deploy") {
      const parsed = hostSchema.safeParse(value());
      if (!parsed.success) throw new UsageError(parsed.error.issues[0]!.message);
      const [, user, host, port] = HOST_RE.exec(parsed.data)!;
      out.host = { user: user!, host: host!, ...(port ? { port: Number(port) } : {}) };
    } else if (a === "-h" || a === "--help") out.command = "help";
    else throw new UsageError(`unknown option for ${command}: ${a}`);
  }
  if ((command === "info" || command === "deploy") && out.command !== "help" && !out.plugin) throw new UsageError(`${command} needs --plugin NAME`);
  return out;
}
