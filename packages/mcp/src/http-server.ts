import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { ForbiddenError, NotFoundError, RateLimitedError, SvcError } from "@svc/errors";
import { LoginLimiter, safeEqual, sendProblem } from "@svc/http";
import type { Logger } from "@svc/logger";

export interface McpHttpOptions {
  name: string;
  /** Builds a fresh server per request (the handler is stateless). */
  factory: () => McpServer;
  host: string;
  port: number;
  /** Required as `Authorization: Bearer <token>` on /mcp when set. */
  token: string | undefined;
  /** Browser origins (hostnames) allowed besides loopback. */
  allowedOrigins: readonly string[];
  logger: Logger;
  /** Wrong bearer tokens counted per client, as the REST APIs count failed logins (default: 10 in 5 min → 5 min of 429). */
  limiter?: LoginLimiter;
}

export interface McpHttpServer {
  readonly port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true; // non-browser clients send none
  try {
    const host = new URL(origin).hostname;
    return LOOPBACK.has(host) || allowed.includes(host);
  } catch {
    return false;
  }
}

function bearerOk(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization?.trim() ?? "");
  return m !== null && safeEqual(m[1]!, token);
}

/** Streamable HTTP at /mcp (bearer token, Origin check, failed-token lockout), plus an unauthenticated GET /health. */
export async function startMcpHttpServer(o: McpHttpOptions): Promise<McpHttpServer> {
  const limiter = o.limiter ?? new LoginLimiter();
  const handler = createMcpHandler(() => o.factory(), { onerror: (e) => o.logger.warn({ err: e.message }, "mcp request rejected") });
  const node = toNodeHandler(handler);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/health" && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ status: "ok", server: o.name }));
    }
    if (path !== "/mcp") return sendProblem(res, new NotFoundError("not_found", `no route ${req.method} ${String(path).slice(0, 100)}; the MCP endpoint is /mcp`));
    if (!originAllowed(req.headers.origin, o.allowedOrigins)) return sendProblem(res, new ForbiddenError("Origin not allowed"));
    if (o.token) {
      // Not behind a proxy: the peer's own address is the client.
      const attempt = { client: req.socket.remoteAddress ?? "unknown" };
      const wait = limiter.retryAfter(attempt);
      if (wait > 0) {
        res.setHeader("Retry-After", String(wait));
        return sendProblem(res, new RateLimitedError("Too many wrong tokens from this client; try again later"));
      }
      if (!bearerOk(req, o.token)) {
        if (req.headers.authorization) limiter.fail(attempt);
        res.setHeader("WWW-Authenticate", 'Bearer realm="mcp"');
        return sendProblem(res, new SvcError("unauthenticated", "a bearer token is required (Authorization: Bearer <SVC_MCP_TOKEN>)"));
      }
    }
    node(req, res).catch((e: unknown) => {
      o.logger.error({ err: e instanceof Error ? e.message : String(e) }, "mcp request failed");
      if (!res.headersSent) sendProblem(res, new SvcError("internal", "the request could not be handled"));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  o.logger.info({ host: o.host, port, auth: Boolean(o.token) }, "mcp http listening");
  return {
    port,
    async close() {
      await handler.close().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
