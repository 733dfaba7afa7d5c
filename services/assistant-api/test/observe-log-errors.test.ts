import { NotFoundError } from "@svc/errors";
import { silentLogger } from "@svc/logger";
import { waitFor } from "@svc/testing";
import { observeDag } from "../src/observe";
import { createStack, type Stack } from "./stack";

/** observe reads the failed task's log through the real engine; only getTaskLog is made to fail, the way a removed run or a database outage makes it fail. */
let s: Stack;
const UI = "http://ui.test:8888";

beforeAll(async () => {
  s = await createStack("aiobslog", { orchestrator: false });
  const engine = s.assistant.engine;
  await engine.setPaused("certificate_check", false);
  await engine.triggerDagRun("certificate_check", { runId: "manual__cert_log" });
  await waitFor(async () => (await engine.getDagRun("certificate_check", "manual__cert_log")).state === "failed", { timeoutMs: 20_000, what: "run failed" });
});
afterAll(async () => s?.close());

test("a log that is gone becomes a warning concern naming the task and the reason, and a logged warning", async () => {
  const engine = { ...s.assistant.engine, getTaskLog: () => Promise.reject(new NotFoundError("task_instance_not_found", "Task instance scan try 1 not found")) };
  const warned: unknown[] = [];
  const logger = silentLogger();
  logger.warn = (o: unknown) => void warned.push(o);
  const o = await observeDag(engine, UI, "certificate_check", "manual__cert_log", logger);
  expect(o.overall_status).toBe("failed");
  expect(o.concerns).toContainEqual({ severity: "warning", task_id: "scan", message: "The log of scan try 1 could not be read: Task instance scan try 1 not found" });
  expect(warned).toEqual([expect.objectContaining({ taskId: "scan", tryNumber: 1, err: "Task instance scan try 1 not found" })]);
});

test("any other failure to read the log is thrown, not answered as an observation with an empty log", async () => {
  const engine = { ...s.assistant.engine, getTaskLog: () => Promise.reject(new Error("Connection terminated unexpectedly")) };
  await expect(observeDag(engine, UI, "certificate_check", "manual__cert_log")).rejects.toThrow("Connection terminated unexpectedly");
});
