import { silentLogger } from "@svc/logger";
import { recordingNotifier } from "@svc/testing";
import { runChangedByTry } from "./run-changed";
import { takePrimedRead } from "./primed-read";
import type { RunRead } from "./run-read";

const job = { dagId: "d", runId: "r" };

test("a worker with its own evaluation evaluates the run after the outcome and tells the scheduler nothing", async () => {
  const notifier = recordingNotifier();
  const asked: string[] = [];
  await runChangedByTry({ notifier, logger: silentLogger(), evaluate: async (d, r, v) => void asked.push(`${d}/${r}/${v}`) }, job);
  expect(asked).toEqual([`d/r/${Number.MAX_SAFE_INTEGER}`]);
  expect(notifier.calls).toEqual([]);
});

test("an evaluation that fails (database gone) hands the run to the scheduler as before", async () => {
  const notifier = recordingNotifier();
  await runChangedByTry({ notifier, logger: silentLogger(), evaluate: () => Promise.reject(new Error("connection refused")) }, job);
  expect(notifier.calls).toEqual(["run:d:r:0"]);
});

test("without its own evaluation (a try run outside startWorker), the scheduler is told", async () => {
  const notifier = recordingNotifier();
  await runChangedByTry({ notifier, logger: silentLogger() }, job);
  expect(notifier.calls).toEqual(["run:d:r:0"]);
});

test("a run end checked with its read evaluates from that read, and the read is gone after", async () => {
  const notifier = recordingNotifier();
  const read: RunRead = { id: 7, dag_id: "d", run_id: "r", state: "running", conf: {}, logical_date: new Date(0), dag_hash: "h", version: 3, evaluated_version: 2, tis: [] };
  const seen: (RunRead | undefined)[] = [];
  await runChangedByTry({ notifier, logger: silentLogger(), evaluate: async (d, r) => void seen.push(takePrimedRead(d, r)) }, job, read);
  expect(seen).toEqual([read]);
  expect(takePrimedRead("d", "r")).toBeUndefined();
  // Without a read the evaluation finds none primed and reads the run itself.
  await runChangedByTry({ notifier, logger: silentLogger(), evaluate: async (d, r) => void seen.push(takePrimedRead(d, r)) }, job);
  expect(seen).toEqual([read, undefined]);
});
