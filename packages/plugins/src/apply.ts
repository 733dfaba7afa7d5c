import type { HostExecutor, RunResult } from "@svc/host";
import type { ApplyHooks, ApplyReport, Change } from "./types";

// Installing the hypervisor packages on a slow mirror takes minutes.
const STEP_TIMEOUT_MS = 30 * 60_000;
const OUTPUT_TAIL = 4000;

/** The last part of a failed step's output, for the report. */
function tail(r: RunResult): string {
  const text = [r.stdout, r.stderr]
    .map((s) => s.trim())
    .filter(Boolean)
    .join("\n");
  return text.length > OUTPUT_TAIL ? `…${text.slice(-OUTPUT_TAIL)}` : text;
}

/**
 * Run the changes in order, each step as root; stop at the first step that fails, since later
 * changes may need it (the daemons need their packages), and report it with its output.
 */
export async function applyChanges(plan: Change[], exec: HostExecutor, hooks: ApplyHooks = {}): Promise<ApplyReport> {
  const report: ApplyReport = { applied: [], failed: [], notTried: [] };
  for (const [i, change] of plan.entries()) {
    if (report.failed.length) {
      report.notTried.push(change.id);
      continue;
    }
    hooks.onChangeStart?.(change, i, plan.length);
    let ok = true;
    for (const step of change.steps) {
      hooks.onStep?.(change, step);
      let r: RunResult;
      try {
        r = await exec.run(step.argv, { root: true, env: step.env, timeoutMs: STEP_TIMEOUT_MS });
      } catch (e) {
        r = { code: 127, stdout: "", stderr: (e as Error).message };
      }
      if (r.code !== 0) {
        report.failed.push({ change: change.id, step: step.argv.join(" "), code: r.code, output: tail(r) });
        ok = false;
        break;
      }
    }
    hooks.onChangeDone?.(change, ok);
    if (ok) report.applied.push(change.id);
  }
  return report;
}
