import { randomBytes } from "node:crypto";
import { createRequestStateCodec, McpServer, type RequestStateCodec } from "@modelcontextprotocol/server";
import { registerTools, type ToolDef } from "@svc/mcp";
import pkg from "../package.json";
import type { AssistantToolDeps } from "./deps";
import type { IntentRoundState } from "./intent-rounds";
import { docsTools } from "./tools/docs-tools";
import { flowTools } from "./tools/flow-tools";

export const ASSISTANT_SERVER_NAME = "svc-assistant";

const INSTRUCTIONS =
  "Assistant tools of svc. search_docs and ask answer from the documentation with sources. submit_intent turns a sentence into a workflow flow; " +
  "when it needs a value the user is asked (elicitation) or the question is returned for answer_flow; a flow awaiting approval waits for an operator " +
  "(approve_flow only on a server whose role may approve); get_flow and observe_dag follow them.";

/** A codec for submit_intent's round state; the key lives as long as the process (rounds of one call reach the same process). */
export function createIntentStateCodec(): RequestStateCodec<IntentRoundState> {
  return createRequestStateCodec<IntentRoundState>({ key: randomBytes(32), ttlSeconds: 900 });
}

export function assistantTools(deps: AssistantToolDeps): ToolDef[] {
  return [...docsTools(deps), ...flowTools(deps)];
}

/** A fresh server with the assistant tools its role may use (and only the reads when read-only). */
export function createAssistantServer(deps: AssistantToolDeps, opts: { readOnly: boolean }): McpServer {
  const server = new McpServer(
    { name: ASSISTANT_SERVER_NAME, version: pkg.version },
    { instructions: INSTRUCTIONS, requestState: { verify: (...a: Parameters<typeof deps.stateCodec.verify>) => deps.stateCodec.verify(...a) } },
  );
  registerTools(server, assistantTools(deps), { readOnly: opts.readOnly, role: deps.role, logger: deps.logger });
  return server;
}
