import http from "node:http";
import type { Server } from "node:http";
import type { KyselyPlugin } from "kysely";
import { freePort, waitFor } from "@svc/testing";
import { createWebUiApp } from "../src/app";
import { dagLiveStatesFromDb } from "../src/ui/home-query";
import { AUTH, BEARER, createWebFixture, type WebFixture } from "./helpers";

let fx: WebFixture;
let server: Server;
let base = "";

beforeAll(async () => {
  fx = await createWebFixture("homeevents");
  const app = createWebUiApp({ api: fx.api, auth: AUTH, ui: { db: fx.db, gridEvents: { pollMs: 50 } } });
  const port = await freePort();
  server = await new Promise((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await fx?.close();
});

interface LiveDag {
  dag_id: string;
  is_paused: boolean;
  next_run: string | null;
  runs: { dag_run_id: string; state: string }[];
}

/** Open an event stream and collect its `dags` events. */
function openStream(headers: Record<string, string>): Promise<{ status: number; type: string; events: LiveDag[][]; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/home/events`, { headers }, (res) => {
      const events: LiveDag[][] = [];
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === "dags" && data) events.push((JSON.parse(data) as { dags: LiveDag[] }).dags);
        }
      });
      resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), events, close: () => req.destroy() });
    });
    req.on("error", reject);
  });
}

test("every DAG's switch, newest runs (at most 8, newest first) and next run are read in one query", async () => {
  await fx.api.setPaused("hello", false);
  for (let i = 1; i <= 9; i++) await fx.api.triggerDagRun("vm_deploy", { runId: `r${i}`, conf: { vm_name: "a" } });
  let queries = 0;
  const counting: KyselyPlugin = { transformQuery: (a) => (queries++, a.node), transformResult: async (a) => a.result };
  const states = await dagLiveStatesFromDb(fx.db.withPlugin(counting), 8, new Date("2030-05-01T10:00:00Z"));
  expect(queries).toBe(1);
  expect(states.map((s) => [s.dag_id, s.is_paused, s.next_run])).toEqual([
    ["hello", false, "2030-05-02T00:00:00.000Z"],
    ["vm_deploy", true, null],
  ]);
  expect(states[1]!.runs.map((r) => r.dag_run_id)).toEqual(["r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2"]);
  expect(states[0]!.runs).toEqual([]);
});

test("the DAG list's stream needs credentials, first sends every DAG, then only a DAG that changed and nothing while nothing changes", async () => {
  const anonymous = await openStream({});
  anonymous.close();
  expect(anonymous.status).toBe(401);

  const stream = await openStream({ Authorization: BEARER });
  try {
    expect(stream.status).toBe(200);
    expect(stream.type).toContain("text/event-stream");
    await waitFor(() => stream.events.length >= 1, { what: "first dags event" });
    expect(stream.events[0]!.map((d) => d.dag_id)).toEqual(["hello", "vm_deploy"]);
    // Quiet: polls go on (every 50 ms) but send nothing.
    await new Promise((r) => setTimeout(r, 500));
    expect(stream.events).toHaveLength(1);

    await fx.api.triggerDagRun("hello", { runId: "live" });
    await waitFor(() => stream.events.length >= 2, { what: "dags event after a trigger" });
    expect(stream.events[1]!.map((d) => [d.dag_id, d.runs[0]?.dag_run_id])).toEqual([["hello", "live"]]);
    await fx.api.setPaused("vm_deploy", false);
    await waitFor(() => stream.events.length >= 3, { what: "dags event after unpausing" });
    expect(stream.events[2]!.map((d) => [d.dag_id, d.is_paused])).toEqual([["vm_deploy", false]]);
  } finally {
    stream.close();
  }
});
