import { postgresFailoverDrill, type PostgresFailoverResult } from "./postgres-failover";

const RUNS = Number(process.env.HA_RUNS ?? 120);
let result: PostgresFailoverResult;
beforeAll(async () => {
  result = await postgresFailoverDrill({ runs: RUNS, label: "hapg", say: (s) => process.stderr.write(`${s}\n`) });
  const { diagnosis, missingCommits, ...summary } = result;
  process.stderr.write(`${JSON.stringify({ ...summary, missingCommits: missingCommits.slice(0, 20) })}\n`);
  if (diagnosis) {
    process.stderr.write(`task states: ${JSON.stringify(diagnosis.taskStates)}\n`);
    for (const [name, lines] of Object.entries(diagnosis.services)) process.stderr.write(`--- ${name}\n${lines.join("\n")}\n`);
  }
}, 600_000);

test("pg_auto_failover: with the primary node killed (-9) under 120 runs in flight, the synchronous standby is promoted and every run ends in success or failed with a reason: none lost or stuck, no try committed twice", () => {
  expect(result.inFlight).toBeGreaterThan(0);
  expect(result.newPrimaryPort).not.toBe(result.oldPrimaryPort);
  expect(result.runs.runs).toBe(result.triggered);
  expect(result.runs.success + result.runs.failed).toBe(result.triggered);
  expect(result.runs.failedWithoutReason).toBe(0);
  expect(result.runs.unfinishedRuns).toBe(0);
  expect(result.runs.stuckTasks).toBe(0);
  expect(result.runs.doubleCommits).toBe(0);
  expect(result.servicesDown).toEqual([]);
});

test("every try outcome a worker saw committed, before the kill and after, is on the promoted node (synchronous replication)", () => {
  expect(result.reportedBeforeKill).toBeGreaterThan(0);
  expect(result.reportedCommits).toBeGreaterThan(result.reportedBeforeKill);
  expect(result.missingCommits).toEqual([]);
});

test("the engine's try commits resume on the promoted node, through the multi-host URL that pg_autoctl shows", () => {
  expect(result.commitsBackMs).toBeGreaterThanOrEqual(0);
  expect(result.shownUri).toContain(`127.0.0.1:${result.oldPrimaryPort},127.0.0.1:${result.newPrimaryPort}`);
  expect(result.shownUri).toContain("target_session_attrs=read-write");
});
