import { createInterface } from "node:readline/promises";
import { runVmHostsCli } from "./vm-hosts";

// Entry point of svc-vm with -C/--host or --all-hosts (packages/vm/bin/svc-vm hands over here).
void runVmHostsCli(process.argv.slice(2), {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  ask: async (q) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(q);
    } finally {
      rl.close();
    }
  },
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
