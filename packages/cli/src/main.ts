import { runCli } from "./cli";
import { exitCodeOf } from "./exit-code";

// The binary: real streams, real environment; wait for stdout to drain before exiting.
const io = {
  stdout: (t: string) => void process.stdout.write(t),
  stderr: (t: string) => void process.stderr.write(t),
  env: process.env,
};
void exitCodeOf(runCli(process.argv.slice(2), io), io.stderr).then((code) => {
  process.stdout.write("", () => process.exit(code));
});
