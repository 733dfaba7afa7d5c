import type { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { loadConfig, type McpSettings, type SvcConfig } from "@svc/config";
import type { Logger } from "@svc/logger";
import { parseTransportArgs } from "./cli-args";
import { startMcpHttpServer } from "./http-server";
import { decideMcpListen } from "./mcp-listen";
import { createStderrLogger } from "./stderr-logger";

/** What a tool server process opens: a per-connection server factory and the resources behind it. */
export interface OpenedMcpService {
  factory: () => McpServer;
  close(): Promise<void>;
}

export interface McpServiceSpec {
  name: string;
  /** HTTP port when --port is not given. */
  defaultPort(settings: McpSettings): number;
  /** `settings` is config.mcp. */
  open(o: { config: SvcConfig; settings: McpSettings; logger: Logger }): Promise<OpenedMcpService>;
}

/**
 * Process entry shared by the tool servers: parse arguments and configuration once, open the
 * service, serve stdio (default) or Streamable HTTP, and close everything on SIGTERM/SIGINT or
 * when the stdio client goes away.
 */
export async function runMcpService(spec: McpServiceSpec, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const transport = parseTransportArgs(argv);
  const config = loadConfig(env);
  const settings = config.mcp;
  const logger = createStderrLogger(spec.name, config.logLevel);
  // Decided before anything opens: production HTTP without a token must not start at all.
  const listen = transport.kind === "http" ? decideMcpListen(config, settings) : undefined;
  if (listen && !listen.ok) throw new Error(listen.reason);
  if (listen?.ok && listen.warning) logger.warn({ host: listen.host }, listen.warning);

  const service = await spec.open({ config, settings, logger });
  let stopTransport: () => Promise<void>;
  if (transport.kind === "http" && listen?.ok) {
    const http = await startMcpHttpServer({
      name: spec.name,
      factory: service.factory,
      host: listen.host,
      port: transport.port ?? spec.defaultPort(settings),
      token: settings.token,
      allowedOrigins: settings.allowedOrigins,
      logger,
    });
    stopTransport = () => http.close();
  } else {
    const handle = serveStdio(() => service.factory());
    stopTransport = () => handle.close();
    process.stdin.once("end", () => void stop("stdin closed"));
    logger.info({ readOnly: settings.readOnly }, "mcp stdio ready");
  }

  let stopping = false;
  async function stop(reason: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "shutting down");
    // Whatever hangs, the process is gone within the stop grace plus 5 s (as the other services).
    const force = setTimeout(() => {
      logger.error({ graceMs: config.limits.stopGraceMs }, "shutdown did not finish within the stop grace; exiting now");
      process.exit(1);
    }, config.limits.stopGraceMs + 5000);
    force.unref();
    await stopTransport().catch(() => undefined);
    await service.close().catch((e: unknown) => logger.warn({ err: String(e) }, "close failed"));
    process.exit(0);
  }
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** Run a tool server as the process entry (its main.ts passes the environment): any start-up failure is printed and exits 1. */
export function mainOf(spec: McpServiceSpec, env: NodeJS.ProcessEnv): void {
  runMcpService(spec, process.argv.slice(2), env).catch((e: unknown) => {
    process.stderr.write(`${spec.name}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
