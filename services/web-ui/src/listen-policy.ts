import type { SvcConfig } from "@svc/config";
import { authConfigured } from "./auth";

export type ListenDecision = { ok: true; host: string; open: boolean; warning?: string } | { ok: false; reason: string };

/**
 * Where the web UI may listen. Production without credentials refuses to start; development
 * without credentials is open but bound to 127.0.0.1 only, whatever SVC_BIND_HOST says.
 */
export function decideListen(config: Pick<SvcConfig, "deploymentMode" | "auth" | "http">): ListenDecision {
  const { adminUser, adminPassword } = config.auth;
  if (Boolean(adminUser) !== Boolean(adminPassword)) {
    return { ok: false, reason: "SVC_ADMIN_USER and SVC_ADMIN_PASSWORD must be set together" };
  }
  if (authConfigured(config.auth)) return { ok: true, host: config.http.bindHost ?? "0.0.0.0", open: false };
  if (config.deploymentMode === "production") {
    return { ok: false, reason: "refusing to start in production without credentials: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD, or SVC_API_TOKEN" };
  }
  const asked = config.http.bindHost;
  const warning = asked && asked !== "127.0.0.1" && asked !== "localhost"
    ? `no credentials configured: ignoring SVC_BIND_HOST=${asked} and listening on 127.0.0.1 only`
    : "no credentials configured: the API is open and listens on 127.0.0.1 only";
  return { ok: true, host: "127.0.0.1", open: true, warning };
}
