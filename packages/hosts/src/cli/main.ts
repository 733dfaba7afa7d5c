import { runCli } from "./run";

// Entry point of the svc-hosts bin: real stdio, real environment.
void runCli(process.argv.slice(2), {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
