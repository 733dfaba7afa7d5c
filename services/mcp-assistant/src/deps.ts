import type { DocsIndex } from "@svc/assistant";
import type { RequestStateCodec } from "@modelcontextprotocol/server";
import type { Role } from "@svc/http";
import type { Logger } from "@svc/logger";
import type { AssistantClient } from "./assistant-client";
import type { IntentRoundState } from "./intent-rounds";

/** What the assistant tools use; the process entry and the tests build it. */
export interface AssistantToolDeps {
  api: AssistantClient;
  /** The server's role (SVC_MCP_ASSISTANT_ROLE): the tools it registers; approval only for op and above. */
  role: Role;
  /** The documentation index (built once, on first use). */
  docs(): Promise<DocsIndex>;
  logger: Logger;
  /** Signs submit_intent's state between question rounds. */
  stateCodec: RequestStateCodec<IntentRoundState>;
}
