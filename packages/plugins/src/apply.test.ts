import { LocalExecutor } from "@svc/host";
import { applyChanges } from "./apply";
import type { Change } from "./types";

const change = (id: string, ...argvs: string[][]): Change => ({ id, kind: "directory", description: id, steps: argvs.map((argv) => ({ argv })) });

describe("applyChanges", () => {
  it("runs changes in order, stops at the first failing step with its output, and does not try the rest", async () => {
    const seen: string[] = [];
    const report = await applyChanges(
      [change("a", ["true"]), change("b", ["sh", "-c", "echo half-done; echo broken >&2; exit 3"], ["true"]), change("c", ["true"])],
      new LocalExecutor({ env: process.env }),
      { onStep: (c, s) => seen.push(`${c.id}:${s.argv[0]}`) },
    );
    expect(report).toEqual({
      applied: ["a"],
      failed: [{ change: "b", step: "sh -c echo half-done; echo broken >&2; exit 3", code: 3, output: "half-done\nbroken" }],
      notTried: ["c"],
    });
    expect(seen).toEqual(["a:true", "b:sh"]);
  });

  it("a missing command is a failed step, not an exception", async () => {
    const report = await applyChanges([change("x", ["svc-no-such-command-here"])], new LocalExecutor({ env: process.env }));
    expect(report.failed[0]).toMatchObject({ change: "x", code: 127, output: expect.stringMatching(/command not found/) });
  });
});
