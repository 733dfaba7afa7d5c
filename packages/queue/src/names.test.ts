import { jobDagHash, parseTaskJob, taskJobSchema } from "./names";

const good = { dagId: "d", runId: "r", taskId: "t", tryNumber: 2, dagHash: "abc" };

test("parseTaskJob returns exactly what the zod schema returns for well-formed jobs", () => {
  for (const data of [good, { ...good, dagHash: undefined }, { dagId: "d", runId: "r", taskId: "t", tryNumber: 1 }, { ...good, extra: "dropped" }]) {
    expect(parseTaskJob(data)).toEqual(taskJobSchema.parse(data));
  }
  expect(parseTaskJob({ ...good, extra: 1 })).not.toHaveProperty("extra");
});

test("parseTaskJob rejects malformed jobs with the schema's error naming the field", () => {
  const bad: [unknown, string][] = [
    [null, ""],
    ["text", ""],
    [{ ...good, tryNumber: 0 }, "tryNumber"],
    [{ ...good, tryNumber: 1.5 }, "tryNumber"],
    [{ ...good, tryNumber: "1" }, "tryNumber"],
    [{ ...good, runId: 7 }, "runId"],
    [{ ...good, dagHash: 5 }, "dagHash"],
    [{ runId: "r", taskId: "t", tryNumber: 1 }, "dagId"],
  ];
  for (const [data, field] of bad) expect(() => parseTaskJob(data)).toThrow(field);
});

test("a task job carries the first 16 characters of the definition hash", () => {
  const hash = "0123456789abcdef".repeat(4);
  expect(jobDagHash(hash)).toBe("0123456789abcdef");
  expect(parseTaskJob({ dagId: "d", runId: "r", taskId: "t", tryNumber: 1, dagHash: jobDagHash(hash) }).dagHash).toBe("0123456789abcdef");
});
