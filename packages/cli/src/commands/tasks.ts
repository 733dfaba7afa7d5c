import { UsageError } from "../errors";
import type { Command } from "./types";

const POLL_MS = 500;

/** `tasks logs <dag_id> <run_id> <task_id> [--try N] [--follow]`. */
export const tasksCommands: Command[] = [
  {
    group: "tasks",
    name: "logs",
    summary: "Print a task's log (the latest try unless --try); --follow waits for new lines until the try ends",
    args: ["dag_id", "run_id", "task_id"],
    options: [
      { name: "try", type: "string", value: "N", description: "try number (default: the latest)" },
      { name: "follow", short: "f", type: "boolean", description: "keep printing new lines until the try finishes" },
    ],
    async run(ctx, { positionals, values }) {
      const [dagId, runId, taskId] = positionals as [string, string, string];
      const api = ctx.api();
      let tryNumber: number;
      if (values.try !== undefined) {
        tryNumber = Number(values.try);
        if (!Number.isInteger(tryNumber) || tryNumber < 1) throw new UsageError("--try must be a positive integer");
      } else {
        tryNumber = Math.max(1, (await api.getTaskInstance(dagId, runId, taskId)).try_number);
      }
      let token: string | undefined;
      for (;;) {
        const chunk = await api.getTaskLog(dagId, runId, taskId, tryNumber, { token, fullContent: !values.follow });
        if (chunk.content) ctx.io.stdout(chunk.content);
        token = chunk.continuation_token;
        if (!values.follow || chunk.finished) return 0;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
  },
];
