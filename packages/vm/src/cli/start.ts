import { createInterface } from "node:readline/promises";
import type { CliIo } from "./io";

/** A question on the terminal: asked on stderr, so stdout stays the command's output. */
async function ask(q: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(q);
  } finally {
    rl.close();
  }
}

/**
 * Start-up of a CLI's bin: its arguments, real stdio, the environment its entry point read, and its
 * answer as the process's exit code (svc-vm, and svc-vm -C / --all-hosts and svc-hosts in @svc/hosts).
 */
export function startCli(run: (argv: string[], io: CliIo) => Promise<number>, env: CliIo["env"]): void {
  void run(process.argv.slice(2), {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    ask,
    env,
  }).then((code) => {
    process.exitCode = code;
  });
}
