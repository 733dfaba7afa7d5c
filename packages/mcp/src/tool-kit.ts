import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import { mayDo, type Action, type Role } from "@svc/http";
import type { Logger } from "@svc/logger";
import { describeToolError } from "./tool-error";

/** read: no side effect; write: changes state; destructive: removes or resets something. */
export type ToolTier = "read" | "write" | "destructive";

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  /** Sends a progress notification when the client asked for progress; a no-op otherwise. */
  progress(progress: number, total: number | undefined, message: string): Promise<void>;
  /** Aborted when the client cancels the call or the connection closes. */
  signal: AbortSignal;
  /** The SDK's request context. */
  sdk: ServerContext;
  /** What the client declared it supports (on this connection, or in this request's envelope). */
  clientCapabilities: ClientCapabilities | undefined;
}

/** A tool's answer: `data` is the structured content (checked against `output`), `text` a short rendering. */
export interface ToolAnswer<O> {
  data: O;
  text: string;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  tier: ToolTier;
  /** What it does, in the action table REST shares (@svc/http): a server whose role is below it does not register it. */
  action: Action;
  /** Calling it twice with the same arguments has no further effect. */
  idempotent?: boolean;
  /** It reaches beyond this platform's own state (the host, the network). */
  openWorld?: boolean;
  input: I;
  output: O;
  run(args: z.infer<I>, ctx: ToolContext): Promise<ToolAnswer<z.infer<O>> | CallToolResult | InputRequiredResult>;
}

/** Define a tool with its types inferred from its schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef {
  return def;
}

/** The annotations a tier implies: every tool says whether it only reads. */
export function annotationsOf(def: Pick<ToolDef, "tier" | "idempotent" | "openWorld" | "title">) {
  const readOnly = def.tier === "read";
  return {
    title: def.title,
    readOnlyHint: readOnly,
    ...(readOnly ? {} : { destructiveHint: def.tier === "destructive" }),
    ...(readOnly ? { idempotentHint: true } : def.idempotent !== undefined ? { idempotentHint: def.idempotent } : {}),
    openWorldHint: def.openWorld ?? false,
  };
}

function isToolAnswer(x: ToolAnswer<unknown> | CallToolResult | InputRequiredResult): x is ToolAnswer<unknown> {
  return "data" in x && typeof (x as { text?: unknown }).text === "string" && !("content" in x);
}

/** A tool error result whose text names the field or the reason. */
export function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function contextOf(sdk: ServerContext, server: McpServer): ToolContext {
  const token = sdk.mcpReq._meta?.progressToken;
  const envelope = sdk.mcpReq.envelope as Record<string, unknown> | undefined;
  const clientCapabilities = server.server.getClientCapabilities() ?? (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined);
  return {
    sdk,
    clientCapabilities,
    signal: sdk.mcpReq.signal,
    async progress(progress, total, message) {
      if (token === undefined) return;
      await sdk.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), message } });
    },
  };
}

/** The tools a server with `role` registers (in read-only mode only the reads): the others it can neither list nor call. */
export function toolsFor(defs: readonly ToolDef[], opts: { readOnly: boolean; role: Role }): ToolDef[] {
  return defs.filter((def) => mayDo(opts.role, def.action) && !(opts.readOnly && def.tier !== "read"));
}

/**
 * Register the tools on a server: only those the server's role may use (the action table REST
 * uses too), and in read-only mode no write or destructive tool at all; a client can neither
 * list nor call the others. Failures become tool errors.
 */
export function registerTools(server: McpServer, defs: readonly ToolDef[], opts: { readOnly: boolean; role: Role; logger: Logger }): string[] {
  const names: string[] = [];
  for (const def of toolsFor(defs, opts)) {
    names.push(def.name);
    const handler = async (args: unknown, sdk: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
      try {
        const answer = await def.run(args as z.infer<typeof def.input>, contextOf(sdk, server));
        // A result the tool built itself (an error, or input_required: ask the client and call again).
        if (!isToolAnswer(answer)) return answer;
        return { content: [{ type: "text", text: answer.text }], structuredContent: answer.data };
      } catch (e) {
        const { text, expected } = describeToolError(e);
        if (expected) opts.logger.info({ tool: def.name, reason: text }, "tool call refused");
        else opts.logger.error({ tool: def.name, err: e instanceof Error ? (e.stack ?? e.message) : String(e) }, "tool call failed");
        return toolErrorResult(text);
      }
    };
    server.registerTool(
      def.name,
      { title: def.title, description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: annotationsOf(def) },
      handler as never,
    );
  }
  return names;
}
