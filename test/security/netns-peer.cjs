// A helper process inside a network namespace (started with `ip netns exec NS node netns-peer.cjs`),
// driven over the IPC channel by a test in the root namespace:
//   {op: "listen", id, host}  → a TCP server on host:0 inside the namespace, sent back as a handle
//                               (the test's own HTTP server then accepts its connections);
//   {op: "get", id, from, host, port, path, headers} → an HTTP GET from the local address `from`,
//                               answered {id, status, retryAfter}.
"use strict";
const http = require("node:http");
const net = require("node:net");

process.on("message", (m) => {
  if (m.op === "listen") {
    const server = net.createServer();
    server.on("error", (e) => process.send({ id: m.id, error: String(e) }));
    server.listen({ host: m.host, port: 0 }, () => {
      // The test's copy accepts from now on; this one is closed once sent.
      process.send({ id: m.id, port: server.address().port }, server, () => server.close());
    });
  } else if (m.op === "get") {
    const req = http.request({ host: m.host, port: m.port, path: m.path, localAddress: m.from, headers: m.headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => process.send({ id: m.id, status: res.statusCode, retryAfter: res.headers["retry-after"] }));
    });
    req.on("error", (e) => process.send({ id: m.id, error: String(e) }));
    req.end();
  }
});
process.on("disconnect", () => process.exit(0));
