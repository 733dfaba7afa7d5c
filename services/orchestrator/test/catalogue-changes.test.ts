import { writeFileSync } from "node:fs";
import path from "node:path";
import request from "supertest";
import { waitFor } from "@svc/testing";
import { createStack, type Stack } from "../../assistant-api/test/stack";

// The orchestrator keeps the catalogue between DAG changes (Postgres notifies each change at
// commit): an intent sent right after a pause, an unpause or a new DAG file sees it.
let s: Stack;

beforeAll(async () => {
  s = await createStack("orchcat");
});
afterAll(async () => s?.close());

const intent = async (text: string) => (await request(s.app).post("/orchestrator/intent").send({ intent: text, auto_execute: false })).body;
const pausedReason = (flow: { approval?: { reasons?: string[] } }) => (flow.approval?.reasons ?? []).some((r) => /is paused/.test(r));

test("an intent sent right after a DAG is unpaused, paused again, or added sees the catalogue as committed", async () => {
  expect(pausedReason(await intent("run a health check"))).toBe(true);
  await s.assistant.engine.setPaused("infrastructure_health_check", false);
  expect(pausedReason(await intent("run a health check"))).toBe(false);
  await s.assistant.engine.setPaused("infrastructure_health_check", true);
  expect(pausedReason(await intent("run a health check"))).toBe(true);

  expect((await intent("polish the brass widgets")).dag_id).not.toBe("brass_polish");
  writeFileSync(path.join(s.dagsDir, "brass.yaml"), "dag_id: brass_polish\ndescription: Polish the brass widgets.\ntasks:\n  - {task_id: a, operator: noop}\n");
  await waitFor(async () => !!(await s.tdb.db.selectFrom("dag").select("dag_id").where("dag_id", "=", "brass_polish").executeTakeFirst()), {
    timeoutMs: 30000,
    what: "the new DAG parsed",
  });
  expect(await intent("polish the brass widgets")).toMatchObject({ dag_id: "brass_polish", status: "awaiting_approval" });
});
