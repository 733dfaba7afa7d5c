import { createInterface } from "node:readline/promises";
import { runCli } from "./cli/run";

// The binary: real streams and environment; a prompt only when stdin is a terminal.
async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

runCli(process.argv.slice(2), {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  ...(process.stdin.isTTY ? { confirm: ask } : {}),
}).then(
  (code) => process.stdout.write("", () => process.exit(code)),
  (e: unknown) => {
    process.stderr.write(`svc-plugins: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
