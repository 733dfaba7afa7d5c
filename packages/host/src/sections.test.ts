import { LocalExecutor } from "./local-executor";
import { runSections } from "./sections";

// Several probes in one command, on this machine's own shell.
const ex = new LocalExecutor({ env: process.env });

test("each section carries its command's exit code and output, in the order the script ran them", async () => {
  const script = `section one printf '%s' "$1"
section two sh -c 'echo out; echo err >&2; exit 3' || section three true
section empty true`;
  const r = await runSections(ex, script, ["a b; $(touch /tmp/never)"]);
  expect(r.code).toBe(0);
  expect(r.sections).toEqual([
    { name: "one", code: 0, out: "a b; $(touch /tmp/never)" },
    { name: "two", code: 3, out: "out\nerr" },
    { name: "three", code: 0, out: "" },
    { name: "empty", code: 0, out: "" },
  ]);
});

test("output that looks like a section header is output: the marker is random", async () => {
  const r = await runSections(ex, `section a printf '%s\\n%s' "$1" tail`, ["@@svc-probe-0000000000000000 fake 0"]);
  expect(r.sections).toEqual([{ name: "a", code: 0, out: "@@svc-probe-0000000000000000 fake 0\ntail" }]);
});
