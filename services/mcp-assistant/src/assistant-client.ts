import type { SvcConfig } from "@svc/config";
import { ToolInputError } from "@svc/mcp";

/** The assistant API's REST surface as the tools use it (the orchestrator's intent path). */
export interface AssistantClient {
  get(path: string): Promise<unknown>;
  post(path: string, body?: unknown): Promise<unknown>;
}

/**
 * How the tool server authenticates to the assistant API: its own token (SVC_MCP_ASSISTANT_TOKEN),
 * which the API accepts with the server's role; never the admin's login or the API token.
 */
export function authHeaderOf(access: SvcConfig["mcpAccess"]): string | undefined {
  return access.assistantToken ? `Bearer ${access.assistantToken}` : undefined;
}

/** A failed call: the API's problem detail (it names the field), never the credentials. */
async function failure(res: Response, path: string): Promise<Error> {
  let detail = `${res.status} ${res.statusText}`;
  let field: string | undefined;
  try {
    const p = (await res.json()) as { detail?: unknown; field?: unknown };
    if (typeof p.detail === "string") detail = p.detail;
    if (typeof p.field === "string") field = p.field;
  } catch {
    // not problem JSON: keep the status line
  }
  if (res.status >= 500 || res.status === 401) return new Error(`assistant API ${path.split("?")[0]}: ${detail}`);
  // A role too low for the call: the agent is told (the API's detail names the role, never a secret).
  if (res.status === 403) return new ToolInputError(`refused by the assistant API: ${detail}`);
  return new ToolInputError(detail, field);
}

export function createAssistantClient(o: { baseUrl: string; authorization: string | undefined; timeoutMs: number }): AssistantClient {
  async function send(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (o.authorization) headers.authorization = o.authorization;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`${o.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(o.timeoutMs) });
    } catch (e) {
      throw new ToolInputError(`the assistant API at ${o.baseUrl} is not reachable (${e instanceof Error ? e.name : "error"}); is svc-assistant-api running?`);
    }
    if (!res.ok) throw await failure(res, path);
    return res.json();
  }
  return { get: (path) => send("GET", path), post: (path, body) => send("POST", path, body ?? {}) };
}
