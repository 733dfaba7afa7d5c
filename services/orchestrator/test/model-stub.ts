import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** How the stub answers the next chat completion. */
export type StubMode = { kind: "tool"; name: string; args: Record<string, unknown> } | { kind: "malformed" } | { kind: "hang" };

/** An OpenAI-compatible chat completions server on 127.0.0.1 (the only fake the tests use: a hosted model). */
export interface ModelStub {
  baseUrl: string;
  calls: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[];
  mode: StubMode;
  close(): Promise<void>;
}

const completion = (message: Record<string, unknown>, finish: string) => ({
  id: "chatcmpl-stub",
  object: "chat.completion",
  created: 1700000000,
  model: "stub-model",
  choices: [{ index: 0, finish_reason: finish, message: { role: "assistant", ...message } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

/** Start the stub on an ephemeral port; set `mode` before each request. */
export async function startModelStub(): Promise<ModelStub> {
  const stub: ModelStub = { baseUrl: "", calls: [], mode: { kind: "malformed" }, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (text += c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
      stub.calls.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
      const m = stub.mode;
      if (m.kind === "hang") return;
      res.writeHead(200, { "content-type": "application/json" });
      if (m.kind === "malformed") {
        // A tool call whose arguments are not JSON, as broken local models produce.
        return void res.end(
          JSON.stringify(
            completion({ content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "vm_deployment", arguments: "{vm_name: web" } }] }, "tool_calls"),
          ),
        );
      }
      res.end(
        JSON.stringify(completion({ content: null, tool_calls: [{ id: "c1", type: "function", function: { name: m.name, arguments: JSON.stringify(m.args) } }] }, "tool_calls")),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}
