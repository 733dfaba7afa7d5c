import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { createStack, type Stack } from "./stack";

let s: Stack;
let server: http.Server;
let base: string;

beforeAll(async () => {
  s = await createStack("aisse");
  server = s.app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.close();
  await s?.close();
});

interface SseMessage {
  event: string;
  data: unknown;
}

/** Read an SSE stream until the server closes it; returns parsed events and the comment lines seen. */
function readStream(url: string, onOpen: () => void): Promise<{ events: SseMessage[]; comments: string[]; contentType: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const events: SseMessage[] = [];
        const comments: string[] = [];
        let buf = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const lines = block.split("\n");
            comments.push(...lines.filter((l) => l.startsWith(":")));
            const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
            const data = lines.find((l) => l.startsWith("data: "))?.slice(6);
            if (event && data) events.push({ event, data: JSON.parse(data) });
          }
        });
        res.on("end", () => resolve({ events, comments, contentType: String(res.headers["content-type"]) }));
        res.on("error", reject);
        onOpen();
      })
      .on("error", reject);
  });
}

test("the event stream of a flow delivers phase, task and run events, keeps alive with comments, then closes", async () => {
  const created = await request(s.app).post("/orchestrator/intent").send({ intent: "run a health check", auto_execute: false });
  expect(created.body.status).toBe("awaiting_approval");
  const endpoint: string = created.body.status_endpoint;

  const stream = readStream(`${base}${endpoint}/events`, () => {
    // Approve once the stream is open: the execution phase and every task then arrive live.
    setTimeout(
      () =>
        void request(s.app)
          .post(`${endpoint}/approve`)
          .send({})
          .then(() => undefined),
      400,
    );
  });
  const { events, comments, contentType } = await stream;
  expect(contentType).toMatch(/text\/event-stream/);

  const phases = events.filter((e) => e.event === "phase").map((e) => (e.data as { phase: string }).phase);
  expect(phases).toEqual(["dag_discovery", "dag_validation", "dag_execution"]);

  const statuses = events.filter((e) => e.event === "flow").map((e) => (e.data as { status: string }).status);
  expect(statuses[0]).toBe("awaiting_approval");
  expect(statuses).toContain("in_progress");

  const tasks = events.filter((e) => e.event === "task").map((e) => e.data as { task_id: string; state: string });
  for (const id of ["check_vms", "check_dns", "report"]) {
    const seen = tasks.filter((t) => t.task_id === id).map((t) => t.state);
    expect(seen[seen.length - 1]).toBe("success");
  }
  expect(tasks.some((t) => t.task_id === "check_vms" && t.state === "running")).toBe(true);

  const last = events[events.length - 1]!;
  expect(last.event).toBe("run");
  expect(last.data).toMatchObject({ flow_status: "completed", dag_id: "infrastructure_health_check", state: "success", run_id: `flow__${created.body.execution_id}` });
  expect(comments.some((c) => c.startsWith(": ping"))).toBe(true);
});

test("the stream of a rejected flow ends at once with a run event without a run", async () => {
  const created = await request(s.app).post("/orchestrator/intent").send({ intent: "tell me a joke" });
  expect(created.body.status).toBe("rejected");
  const { events } = await readStream(`${base}${created.body.status_endpoint}/events`, () => undefined);
  expect(events.map((e) => e.event)).toEqual(["flow", "run"]);
  expect(events[1]!.data).toMatchObject({ flow_status: "rejected", run_id: null, state: null });
});
