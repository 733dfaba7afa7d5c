import { readFileSync } from "node:fs";
import { loadConfig, type SvcConfig } from "@svc/config";
import { LocalExecutor, SshExecutor, SshPool, sshOptionsFromConfig, type HostExecutor } from "@svc/host";
import { DeployDeclinedError, deployPlugin, PluginMismatchError } from "../deploy";
import { parseOsRelease } from "../parse";
import { findPlugin, pluginNames, PLUGINS } from "../registry";
import { pluginSettings } from "../settings";
import type { Change, PluginSettings } from "../types";
import { parseArgs, UsageError, USAGE, type ParsedArgs } from "./args";
import { deployJson, deploySummary, infoDocument, infoText, listRows, planText, progressHooks, table } from "./render";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  /** Asks the operator to confirm the changes; absent when there is no terminal. */
  confirm?: (question: string) => Promise<boolean>;
  /** os-release of this machine (default /etc/os-release). */
  osReleasePath?: string;
}

/** The svc-plugins command line; resolves to the exit status (0 ok, 1 failure, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`svc-plugins: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.command === "help") {
    io.stdout(USAGE);
    return 0;
  }
  let config: SvcConfig;
  let settings: PluginSettings;
  try {
    config = loadConfig(io.env);
    settings = pluginSettings(config);
    // Over SSH, sshd is the one svc reached: the port of --host when given.
    if (args.command === "deploy" && args.host?.port) settings = { ...settings, sshPort: args.host.port };
  } catch (e) {
    io.stderr(`svc-plugins: ${(e as Error).message}\n`);
    return 2;
  }
  if (args.command === "list") {
    const here = parseOsRelease(readText(io.osReleasePath ?? "/etc/os-release"));
    const rows = listRows(PLUGINS, here);
    if (args.output === "json") io.stdout(JSON.stringify({ plugins: rows }) + "\n");
    else
      io.stdout(
        table(
          ["NAME", "KIND", "VERSION", "HOST", "DESCRIPTION"],
          rows.map((r) => [r.name, r.kind, r.version, r.matches_host ? "yes" : "-", r.description]),
        ),
      );
    return 0;
  }
  const plugin = findPlugin(args.plugin!);
  if (!plugin) {
    io.stderr(`svc-plugins: unknown plugin ${JSON.stringify(args.plugin)}; known plugins: ${pluginNames().join(", ")}\n`);
    return 2;
  }
  if (args.command === "info") {
    const doc = infoDocument(plugin, settings);
    io.stdout(args.output === "json" ? JSON.stringify(doc) + "\n" : infoText(doc));
    return 0;
  }

  const exec: HostExecutor = args.host
    ? new SshExecutor(sshOptionsFromConfig(config, { host: args.host.host, user: args.host.user, ...(args.host.port ? { port: args.host.port } : {}) }), new SshPool())
    : new LocalExecutor({ env: io.env, inheritAll: true });
  const asTable = args.output === "table";
  const confirm = async (changes: Change[]) => {
    if (args.yes) return true;
    io.stderr(planText(changes));
    if (!io.confirm) {
      io.stderr(`svc-plugins: ${changes.length} change(s) to make on ${exec.target}: rerun with --yes to apply them (or --dry-run)\n`);
      return false;
    }
    return io.confirm(`Apply ${changes.length} change(s) on ${exec.target}? [y/N] `);
  };
  try {
    if (asTable) io.stdout(`${args.dryRun ? "dry run: " : ""}plugin ${plugin.name} on ${exec.target}\n`);
    const report = await deployPlugin(plugin, exec, settings, { dryRun: args.dryRun, confirm, ...(asTable ? { hooks: progressHooks(io.stdout) } : {}) });
    if (asTable) io.stdout((args.dryRun ? planText(report.changes) : "") + deploySummary(report));
    else io.stdout(deployJson(report));
    return report.failed.length ? 1 : 0;
  } catch (e) {
    if (e instanceof DeployDeclinedError || e instanceof PluginMismatchError) {
      io.stderr(`svc-plugins: ${e.message}\n`);
      return 1;
    }
    io.stderr(`svc-plugins: ${exec.target}: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await exec.close();
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
