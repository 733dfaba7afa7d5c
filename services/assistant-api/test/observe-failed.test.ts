import request from "supertest";
import { waitFor } from "@svc/testing";
import { ObservationSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";

let s: Stack;

beforeAll(async () => {
  s = await createStack("aiobserve", { orchestrator: false });
});
afterAll(async () => s?.close());

test("observe on a failed run reports an error concern with the task's log lines and concrete recommendations", async () => {
  const engine = s.assistant.engine;
  await engine.setPaused("certificate_check", false);
  const run = await engine.triggerDagRun("certificate_check", { runId: "manual__cert1" });
  await waitFor(async () => (await engine.getDagRun("certificate_check", run.dag_run_id)).state === "failed", { timeoutMs: 20_000, what: "run failed" });

  const res = await request(s.app).post("/orchestrator/observe?dag_id=certificate_check").type("json");
  expect(res.status).toBe(200);
  const o = ObservationSchema.parse(res.body);
  expect(o).toMatchObject({ dag_id: "certificate_check", run_id: "manual__cert1", overall_status: "failed", progress_percent: 100 });
  expect(o.task_counts).toEqual({ failed: 1, upstream_failed: 1 });
  expect(o.summary).toMatch(/failed/);

  const error = o.concerns.find((c) => c.severity === "error");
  expect(error).toMatchObject({ task_id: "scan" });
  expect(error!.log_tail!.join("\n")).toContain("scanning 3 endpoints");
  expect(error!.log_tail!.join("\n")).toContain("ERROR: certificate for registry.lab expired");
  expect(error!.log_tail!.length).toBeLessThanOrEqual(50);
  expect(error!.error_lines!.join("\n")).toContain("certificate for registry.lab expired");
  expect(o.concerns.some((c) => c.severity === "warning" && /report/.test(c.message))).toBe(true);

  expect(o.recommendations).toEqual(
    expect.arrayContaining([
      expect.stringContaining("svc-engine tasks logs certificate_check manual__cert1 scan --try 1"),
      expect.stringContaining("svc-engine tasks clear certificate_check manual__cert1 scan"),
      expect.stringContaining("http://ui.test:8888/dags/certificate_check/grid"),
    ]),
  );
  expect(o.workflow_ui_url).toBe("http://ui.test:8888/dags/certificate_check/grid");
});

test("observe with a run_id that does not exist is a 404 problem", async () => {
  const res = await request(s.app).post("/orchestrator/observe?dag_id=certificate_check&run_id=nope").type("json");
  expect(res.status).toBe(404);
  expect(res.body.detail).toMatch(/nope/);
});
