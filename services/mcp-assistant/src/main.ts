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
      const api = createAssistantClient({
        baseUrl: settings.assistantUrl ?? `http://127.0.0.1:${config.http.assistantPort}`,
        authorization: authHeaderOf(config.auth),
        // The intent path may wait for the orchestrator (and a model) before answering.
        timeoutMs: Math.max(30_000, config.model.timeoutMs * 3),
      });
      let docs: Promise<DocsIndex> | undefined;
      const deps = { api, logger, stateCodec: createIntentStateCodec(), docs: () => (docs ??= createDocsIndex({ docsDir: config.docsDir })) };
      return {
        factory: () => createAssistantServer(deps, { readOnly: settings.readOnly }),
        async close() {},
      };
    },
  },
  process.env,
);
