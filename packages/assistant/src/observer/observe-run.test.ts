import { errorLines } from "./error-lines";
import { observeRun, type ObservedTask } from "./observe-run";

const UI = "http://ui.example:8888/";
const run = (state: string) => ({ run_id: "manual__1", state, start_date: "2025-01-01T00:00:00Z", end_date: null });
const task = (task_id: string, state: string | null, try_number = 1, operator = "ssh"): ObservedTask => ({ task_id, state, try_number, operator });

describe("observeRun", () => {
  test("no run: pending, 'No DAG runs found for <dag_id>', and how to trigger one", () => {
    const o = observeRun({ dagId: "vm_deployment", tasks: [], logTails: {}, workflowUiUrl: UI });
    expect(o).toMatchObject({ overall_status: "pending", summary: "No DAG runs found for vm_deployment", progress_percent: 0, concerns: [] });
    expect(o.recommendations.join(" ")).toContain("svc-engine dags trigger vm_deployment");
  });

  test("run state maps to overall_status: queued → pending, running → running", () => {
    expect(observeRun({ dagId: "d", run: run("queued"), tasks: [], logTails: {}, workflowUiUrl: UI }).overall_status).toBe("pending");
    expect(observeRun({ dagId: "d", run: run("running"), tasks: [], logTails: {}, workflowUiUrl: UI }).overall_status).toBe("running");
  });

  test("progress counts success, failed, skipped and upstream_failed as done, rounded", () => {
    const tasks = [task("a", "success"), task("b", "skipped"), task("c", "running"), task("d", null), task("e", "queued"), task("f", "success")];
    const o = observeRun({ dagId: "d", run: run("running"), tasks, logTails: {}, workflowUiUrl: UI });
    expect(o.progress_percent).toBe(50);
    expect(o.task_counts).toEqual({ success: 2, skipped: 1, running: 1, none: 1, queued: 1 });
  });

  test("a finished run whose branch skipped tasks reports 100%", () => {
    const tasks = [task("branch", "success"), task("create", "success"), task("delete", "skipped")];
    const o = observeRun({ dagId: "d", run: run("success"), tasks, logTails: {}, workflowUiUrl: UI });
    expect(o).toMatchObject({ overall_status: "success", progress_percent: 100, concerns: [] });
  });

  test("a failed task adds an error concern with the last 50 log lines, the error lines and concrete next steps", () => {
    const log = [...Array.from({ length: 60 }, (_, i) => `line ${i}`), "Traceback (most recent call last):", "ERROR: virt-install exited with code 1"];
    const tasks = [task("create_vm", "failed", 2, "vm_create"), task("configure", "upstream_failed")];
    const o = observeRun({ dagId: "vm_deployment", run: run("failed"), tasks, logTails: { create_vm: log }, workflowUiUrl: UI });
    expect(o.overall_status).toBe("failed");
    const err = o.concerns.find((c) => c.severity === "error")!;
    expect(err.task_id).toBe("create_vm");
    expect(err.log_tail).toHaveLength(50);
    expect(err.log_tail!.at(-1)).toBe("ERROR: virt-install exited with code 1");
    expect(err.error_lines).toEqual(["Traceback (most recent call last):", "ERROR: virt-install exited with code 1"]);
    expect(o.concerns.some((c) => c.severity === "warning" && /upstream/.test(c.message))).toBe(true);
    const rec = o.recommendations.join("\n");
    expect(rec).toContain("create_vm (vm_create) failed");
    expect(rec).toContain("svc-engine tasks logs vm_deployment manual__1 create_vm --try 2");
    expect(rec).toContain("svc-engine tasks clear vm_deployment manual__1 create_vm");
    expect(rec).toContain("http://ui.example:8888/dags/vm_deployment/grid");
  });

  test("a task waiting to retry adds a warning concern, not an error", () => {
    const o = observeRun({ dagId: "d", run: run("running"), tasks: [task("wait_ssh", "up_for_retry", 1)], logTails: { wait_ssh: ["connection refused"] }, workflowUiUrl: UI });
    expect(o.concerns).toEqual([
      { severity: "warning", task_id: "wait_ssh", message: expect.stringMatching(/retry/), log_tail: ["connection refused"], error_lines: ["connection refused"] },
    ]);
  });

  test("a failed run with no failed task still raises an error concern", () => {
    const o = observeRun({ dagId: "d", run: run("failed"), tasks: [task("a", "success")], logTails: {}, workflowUiUrl: UI });
    expect(o.concerns[0]).toMatchObject({ severity: "error" });
  });
});

describe("errorLines", () => {
  test("keeps lines that look like failures and ignores ordinary ones", () => {
    expect(errorLines(["ok: [vm]", "fatal: [vm]: UNREACHABLE!", "Permission denied (publickey)", "changed: 3", "Exception: boom"])).toEqual([
      "fatal: [vm]: UNREACHABLE!",
      "Permission denied (publickey)",
      "Exception: boom",
    ]);
  });
});
