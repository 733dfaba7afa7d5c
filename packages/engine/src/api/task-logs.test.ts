import { sql } from "kysely";
import { BadRequestError, NotFoundError } from "@svc/errors";
import { decodeLogToken, encodeLogToken, LOG_PAGE_LINES, tryIsLive } from "./task-logs";
import { createApiFixture, setTi, type ApiFixture } from "./test-helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("apilogs");
  await f.api.triggerDagRun("hello", { runId: "r" });
});
afterAll(async () => {
  await f.close();
});

const addLines = (lines: string[], tryNumber = 1) =>
  f.db
    .insertInto("task_log")
    .values(lines.map((line) => ({ dag_id: "hello", run_id: "r", task_id: "say", try_number: tryNumber, stream: "stdout" as const, line })))
    .execute();

describe("engine API: task logs", () => {
  test("tokens round-trip and garbage tokens are a 400 naming the token", () => {
    expect(decodeLogToken(encodeLogToken(42))).toBe(42);
    expect(() => decodeLogToken("garbage")).toThrow(BadRequestError);
    expect(() => decodeLogToken(Buffer.from('{"v":1,"after":-3}').toString("base64url"))).toThrow(/token/);
  });

  test("a try is live while queued or running, or not started yet in an active run", () => {
    expect(tryIsLive({ state: "running", try_number: 1 }, 1, true)).toBe(true);
    expect(tryIsLive({ state: "success", try_number: 1 }, 1, true)).toBe(false);
    expect(tryIsLive({ state: "running", try_number: 2 }, 1, true)).toBe(false);
    expect(tryIsLive({ state: null, try_number: 0 }, 1, true)).toBe(true);
    expect(tryIsLive({ state: null, try_number: 0 }, 1, false)).toBe(false);
    expect(tryIsLive({ state: "up_for_retry", try_number: 1 }, 2, true)).toBe(true);
  });

  test("a rescheduled try (up_for_reschedule) is live while its run is active: its next poke writes to the same try", () => {
    expect(tryIsLive({ state: "up_for_reschedule", try_number: 1 }, 1, true)).toBe(true);
    expect(tryIsLive({ state: "up_for_reschedule", try_number: 1 }, 1, false)).toBe(false);
    expect(tryIsLive({ state: "up_for_reschedule", try_number: 1 }, 2, true)).toBe(false);
  });

  test("following with the continuation token returns only new lines, and finished once the try ended", async () => {
    await setTi(f.db, "hello", "r", "say", { state: "running", try_number: 1 });
    await addLines(["tick 1", "tick 2"]);
    const a = await f.api.getTaskLog("hello", "r", "say", 1);
    expect(a.content).toMatch(/^\[.+\] \{stdout\} tick 1\n\[.+\] \{stdout\} tick 2\n$/);
    expect(a.finished).toBe(false);
    const b = await f.api.getTaskLog("hello", "r", "say", 1, { token: a.continuation_token });
    expect(b.content).toBe("");
    await addLines(["tick 3"]);
    await setTi(f.db, "hello", "r", "say", { state: "success" });
    const c = await f.api.getTaskLog("hello", "r", "say", 1, { token: b.continuation_token });
    expect(c.content).toMatch(/tick 3\n$/);
    expect(c.content).not.toContain("tick 2");
    expect(c.finished).toBe(true);
  });

  test("tail returns the last lines; tries are kept apart", async () => {
    const t = await f.api.getTaskLog("hello", "r", "say", 1, { tail: 1 });
    expect(t.content.trim().split("\n")).toHaveLength(1);
    expect(t.content).toContain("tick 3");
    const rest = await f.api.getTaskLog("hello", "r", "say", 1, { token: t.continuation_token });
    expect(rest.content).toBe("");
    expect((await f.api.getTaskLog("hello", "r", "say", 2)).content).toBe("");
  });

  test("without full_content a call returns one page and is not finished until the rest is read", async () => {
    await f.db
      .insertInto("task_log")
      .columns(["dag_id", "run_id", "task_id", "try_number", "stream", "line"])
      .expression(sql`select 'hello', 'r', 'say', 3, 'stdout', 'line ' || g from generate_series(1, ${LOG_PAGE_LINES + 1}) g`)
      .execute();
    await setTi(f.db, "hello", "r", "say", { state: "failed", try_number: 3 });
    const first = await f.api.getTaskLog("hello", "r", "say", 3);
    expect(first.content.trim().split("\n")).toHaveLength(LOG_PAGE_LINES);
    expect(first.finished).toBe(false);
    const second = await f.api.getTaskLog("hello", "r", "say", 3, { token: first.continuation_token });
    expect(second.content).toContain(`line ${LOG_PAGE_LINES + 1}`);
    expect(second.finished).toBe(true);
    expect((await f.api.getTaskLog("hello", "r", "say", 3, { fullContent: true })).content.trim().split("\n")).toHaveLength(LOG_PAGE_LINES + 1);
  });

  test("bad try numbers are a 400 and unknown task instances a 404", async () => {
    await expect(f.api.getTaskLog("hello", "r", "say", 0)).rejects.toThrow(/task_try_number/);
    await expect(f.api.getTaskLog("hello", "r", "nope", 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.api.getTaskLog("hello", "nope", "say", 1)).rejects.toBeInstanceOf(NotFoundError);
  });
});
