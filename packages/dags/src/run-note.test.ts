import { testCatalog } from "../test/helpers/test-catalog";
import { parseDagFile } from "./parse-dag-file";
import { formatProblems } from "./problems";
import { createTemplateContext, renderArgs } from "./template/render";

const dag = (args: string, when = "") => `dag_id: noted
tasks:
  - {task_id: report, operator: noop, args: {message: ${args}}${when ? `, when: "${when}"` : ""}}
`;

describe("run_note: the run's note in task args", () => {
  test("a task's args may read run_note", () => {
    const r = parseDagFile("/dags/noted.yaml", dag(`"made by {{ run_note }}"`), { catalog: testCatalog });
    expect(r.ok).toBe(true);
  });

  test("a when condition may not read it (the scheduler decides without it), and says so", () => {
    const r = parseDagFile("/dags/noted.yaml", dag(`"x"`, "{{ run_note == 'a' }}"), { catalog: testCatalog });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(formatProblems(r.problems)).toMatch(/run_note is readable in task args only, not in when/);
  });

  test("it renders as the note, or an empty string when the run has none", () => {
    const base = { dagId: "noted", runId: "r1", logicalDate: new Date(0), params: {} };
    expect(renderArgs({ m: "{{ run_note }}" }, createTemplateContext({ ...base, runNote: "flow f1: create a vm called web01" }))).toEqual({
      m: "flow f1: create a vm called web01",
    });
    expect(renderArgs({ m: "[{{ run_note }}]" }, createTemplateContext({ ...base, runNote: null }))).toEqual({ m: "[]" });
  });
});
