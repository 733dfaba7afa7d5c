import type { Operator } from "../types";
import { defaultHostExecutor, effectFence, executorFor, logLines, type HostOperatorDeps } from "./deps";
import { args, type Args } from "./ssh-args";

/** Run an argv command on the host over SSH, output streamed to the task log. */
export function createSshOperator(deps: HostOperatorDeps = {}): Operator<Args> {
  const exFor = deps.executor ?? defaultHostExecutor;
  return {
    name: "ssh",
    description: "Run an argv command on the host over SSH (streamed to the log); output exit_code and stdout_tail",
    args,
    hostScoped: true,
    async run(a, ctx) {
      const ex = executorFor(ctx, exFor);
      // An arbitrary command may change the host: it runs at most once per task across tries.
      const r = await ex.run(a.argv, {
        root: a.root,
        env: a.env,
        cwd: a.cwd,
        stdin: a.stdin,
        timeoutMs: a.timeout_s * 1000,
        signal: ctx.signal,
        fence: effectFence(ctx),
        ...logLines(ctx),
      });
      const tail = r.stdout.split("\n").slice(-20).join("\n").trimEnd();
      if (!a.ok_codes.includes(r.code)) {
        const why = r.stderr.trim().split("\n").pop() ?? "";
        throw new Error(`'${a.argv[0]}' exited with ${r.code} on ${ex.target}${why ? `: ${why}` : ""}`);
      }
      return { exit_code: r.code, stdout_tail: tail };
    },
  };
}
