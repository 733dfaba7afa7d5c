import { dagEdges, expandTaskIds, topoOrder } from "./dag-graph";
import { resolveOrder, resolvePage } from "./paging";
import { isoDate } from "./serialize";
import { scheduleInterval, timetableDescription } from "./timetable";

const tasks = [
  { task_id: "a", depends_on: [] },
  { task_id: "b", depends_on: ["a"] },
  { task_id: "c", depends_on: ["b"] },
  { task_id: "d", depends_on: ["a"] },
];

describe("engine API pure helpers", () => {
  test("expandTaskIds follows dependencies transitively in the asked directions", () => {
    expect([...expandTaskIds(tasks, ["b"], {})].sort()).toEqual(["b"]);
    expect([...expandTaskIds(tasks, ["b"], { downstream: true })].sort()).toEqual(["b", "c"]);
    expect([...expandTaskIds(tasks, ["c"], { upstream: true })].sort()).toEqual(["a", "b", "c"]);
    expect([...expandTaskIds(tasks, ["a"], { downstream: true })].sort()).toEqual(["a", "b", "c", "d"]);
  });

  test("topoOrder puts upstream tasks first and dagEdges lists sorted edges", () => {
    const order = topoOrder([...tasks].reverse());
    expect(order.indexOf("a")).toBe(0);
    expect(order.indexOf("b")).toBeLessThan(order.indexOf("c"));
    expect(dagEdges(tasks)).toEqual([
      ["a", "b"],
      ["a", "d"],
      ["b", "c"],
    ]);
  });

  test("resolvePage applies Airflow's defaults and cap; resolveOrder maps fields and directions", () => {
    expect(resolvePage({}, 100)).toEqual({ limit: 100, offset: 0 });
    expect(resolvePage({ limit: 500, offset: 3 }, 100)).toEqual({ limit: 100, offset: 3 });
    expect(() => resolvePage({ limit: -1 }, 100)).toThrow(/limit/);
    expect(resolveOrder("-execution_date", "id", { execution_date: "logical_date" })).toEqual({ column: "logical_date", direction: "desc" });
    expect(() => resolveOrder("constructor", "id", { id: "id" })).toThrow(/order_by/);
  });

  test("timetableDescription words common schedules like Airflow and scheduleInterval wraps cron strings", () => {
    expect(timetableDescription(null)).toBe("Never, external triggers only");
    expect(timetableDescription("@daily")).toBe("At 00:00");
    expect(timetableDescription("30 6 * * *")).toBe("At 06:30");
    expect(timetableDescription("0 */6 * * *")).toBe("At 0 minutes past the hour, every 6 hours");
    expect(timetableDescription("*/5 * * * *")).toBe("Every 5 minutes");
    expect(timetableDescription("0 6 * * 1-5")).toBe("Cron schedule: 0 6 * * 1-5");
    expect(scheduleInterval("@hourly")).toEqual({ __type: "CronExpression", value: "@hourly" });
    expect(scheduleInterval(null)).toBeNull();
  });

  test("isoDate writes an explicit +00:00 offset", () => {
    expect(isoDate(new Date("2024-05-01T10:00:00Z"))).toBe("2024-05-01T10:00:00.000+00:00");
  });
});
