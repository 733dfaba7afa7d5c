import type { SvcConfig } from "@svc/config";
import type { Logger } from "@svc/logger";
import { authConfigured } from "./auth";

export type ListenConfig = Pick<SvcConfig, "deploymentMode" | "auth" | "http">;
export type ListenDecision = { ok: true; host: string; open: boolean; warning?: string } | { ok: false; reason: string };

/**
 * Where an API may listen. Production without credentials refuses to start; development without
 * credentials is open but bound to 127.0.0.1 only, whatever SVC_BIND_HOST says. With credentials:
 * SVC_BIND_HOST, default all interfaces.
 */
export function decideListen(config: ListenConfig): ListenDecision {
  const { adminUser, adminPassword } = config.auth;
  if (Boolean(adminUser) !== Boolean(adminPassword)) {
    return { ok: false, reason: "SVC_ADMIN_USER and SVC_ADMIN_PASSWORD must be set together" };
  }
  if (authConfigured(config.auth)) return { ok: true, host: config.http.bindHost ?? "0.0.0.0", open: false };
  if (config.deploymentMode === "production") {
    return { ok: false, reason: "refusing to start in production without credentials: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD, or SVC_API_TOKEN" };
  }
  const asked = config.http.bindHost;
  const warning =
    asked && asked !== "127.0.0.1" && asked !== "localhost"
      ? `no credentials configured: ignoring SVC_BIND_HOST=${asked} and listening on 127.0.0.1 only`
      : "no credentials configured: the API is open and listens on 127.0.0.1 only";
  return { ok: true, host: "127.0.0.1", open: true, warning };
}

/**
 * decideListen for a process entry point: logs the warning of an open API and returns where to
 * listen, or logs and throws the reason the process must not start (main exits non-zero with it).
 */
export function resolveListenHost(config: ListenConfig, logger?: Pick<Logger, "warn" | "fatal">): { host: string; open: boolean } {
  const d = decideListen(config);
  if (!d.ok) {
    logger?.fatal({}, d.reason);
    throw new Error(d.reason);
  }
  if (d.warning) logger?.warn({ host: d.host }, d.warning);
  return { host: d.host, open: d.open };
}
