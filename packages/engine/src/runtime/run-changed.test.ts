import { silentLogger } from "@svc/logger";
import { recordingNotifier } from "../notifier";
import { runChangedByTry } from "./run-changed";

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
