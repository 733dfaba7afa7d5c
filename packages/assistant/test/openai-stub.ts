import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the stub does with one request: a JSON body, a raw body, or never answering. */
export type StubReply = { json: unknown; status?: number } | { raw: string; status?: number } | { hang: true };

/** An OpenAI-compatible HTTP server on 127.0.0.1 serving POST /v1/chat/completions. */
export interface OpenAiStub {
  baseUrl: string;
  /** Bodies of the chat completion requests received, parsed. */
  requests: Record<string, unknown>[];
  reply: (handler: (body: Record<string, unknown>) => StubReply) => void;
  close: () => Promise<void>;
}

/** A chat completion whose message is one tool call. */
export function toolCallCompletion(name: string, args: Record<string, unknown> | string): unknown {
  return {
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 1700000000,
    model: "stub-model",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) } }],
        },
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

/** A chat completion with plain text content. */
export function textCompletion(content: string): unknown {
  return {
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 1700000000,
    model: "stub-model",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the stub on an ephemeral port. */
export async function startOpenAiStub(): Promise<OpenAiStub> {
  const requests: Record<string, unknown>[] = [];
  let handler: (body: Record<string, unknown>) => StubReply = () => ({ json: textCompletion("") });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void readBody(req).then((text) => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      requests.push(body);
      const r = handler(body);
      if ("hang" in r) return;
      res.writeHead(r.status ?? 200, { "content-type": "application/json" });
      res.end("json" in r ? JSON.stringify(r.json) : r.raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (h) => {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
