import { createDocsIndex, type DocsIndex } from "@svc/assistant";
import { mainOf } from "@svc/mcp";
import { authHeaderOf, createAssistantClient } from "./assistant-client";
import { ASSISTANT_SERVER_NAME, createAssistantServer, createIntentStateCodec } from "./server";

/** svc-mcp-assistant: the assistant tool server over stdio (default) or Streamable HTTP (--http [--port N]). */
mainOf(
  {
    name: ASSISTANT_SERVER_NAME,
    defaultPort: (s) => s.assistantPort,
    async open({ config, settings, logger }) {
      // In production the assistant API wants credentials: without its own token every call would be refused.
      if (config.deploymentMode === "production" && !config.mcpAccess.assistantToken) {
        throw new Error("refusing to start in production without SVC_MCP_ASSISTANT_TOKEN (the token this server presents to the assistant API)");
      }
      const api = createAssistantClient({
        baseUrl: settings.assistantUrl ?? `http://127.0.0.1:${config.http.assistantPort}`,
        authorization: authHeaderOf(config.mcpAccess),
        // The intent path may wait for the orchestrator (and a model) before answering.
        timeoutMs: Math.max(30_000, config.model.timeoutMs * 3),
      });
      let docs: Promise<DocsIndex> | undefined;
      const deps = { api, role: config.mcpAccess.assistantRole, logger, stateCodec: createIntentStateCodec(), docs: () => (docs ??= createDocsIndex({ docsDir: config.docsDir })) };
      logger.info({ role: deps.role, readOnly: settings.readOnly, authenticated: Boolean(config.mcpAccess.assistantToken) }, "tool server role");
      return {
        factory: () => createAssistantServer(deps, { readOnly: settings.readOnly }),
        async close() {},
      };
    },
  },
  process.env,
);
