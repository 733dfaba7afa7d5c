import { createServer, request as httpRequest } from "node:http";
import { freePort } from "./ports";

/** An HTTP proxy on 127.0.0.1 in front of an emulator, counting the requests (round trips) that pass. */
export interface CountingProxy {
  endpoint: string;
  /** Every request that passed, in order: method, path and (for AWS query APIs) the Action. */
  requests: { method: string; path: string; action?: string }[];
  stop(): Promise<void>;
}

/** Start a counting proxy forwarding to `target` (an http://127.0.0.1:PORT endpoint), headers and body as they came. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const to = new URL(target);
  const requests: CountingProxy["requests"] = [];
  const srv = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const action = /(?:^|&)Action=([A-Za-z]+)/.exec(body.toString("latin1"))?.[1] ?? /[?&]Action=([A-Za-z]+)/.exec(req.url ?? "")?.[1];
      requests.push({ method: req.method ?? "GET", path: req.url ?? "/", ...(action ? { action } : {}) });
      const up = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on("error", (e) => {
        res.writeHead(502);
        res.end(e.message);
      });
      up.end(body);
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => srv.listen(port, "127.0.0.1", () => r()));
  return { endpoint: `http://127.0.0.1:${port}`, requests, stop: () => new Promise((r) => srv.close(() => r())) };
}
