import { runCli } from "./cli";

// The binary: real streams, real environment; wait for stdout to drain before exiting.
runCli(process.argv.slice(2), {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
}).then((code) => {
  process.stdout.write("", () => process.exit(code));
});
