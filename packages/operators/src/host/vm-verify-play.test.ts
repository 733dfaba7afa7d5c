import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SvcConfig } from "@svc/config";
import { createTestOperatorContext, type TestSshd } from "@svc/testing";
import { playbookTarget, sshdTestConfig } from "./sshd-test-helpers";
import type { Operator } from "../types";

// playbooks/vm-verify.yml, the verify step of the VM workflows, against an SSH target: each check
// is an argv list run as one command (raw, each word quoted for the target's shell), under
// whichever strategy the operator is configured with.
const PLAYBOOKS = resolve(__dirname, "../../../../playbooks");
const HOSTILE = `a b; $(touch PWNED) {{ 7*7 }} 'q" \`id\` \\ end *`;

let sshd: TestSshd;
let dir: string;
let op: Operator;
const configs: Record<string, SvcConfig> = {};

const target = playbookTarget("svc-vm-verify-");
beforeAll(() => {
  ({ sshd, dir, op } = target);
  for (const strategy of ["auto", "linear"]) configs[strategy] = sshdTestConfig(sshd, join(dir, strategy), { SVC_PLAYBOOKS_DIR: PLAYBOOKS, SVC_ANSIBLE_STRATEGY: strategy });
});

function verify(strategy: string, commands: string[][]) {
  const ctx = createTestOperatorContext(configs[strategy]!, `verify_${strategy}`);
  const args = op.args.parse({
    playbook: "vm-verify.yml",
    hosts: [{ name: "target", host: "127.0.0.1", port: sshd.port, user: sshd.user }],
    private_key: sshd.keyPath,
    extra_vars: { verify_commands: commands },
  });
  return { ctx, done: op.run(args, ctx) as Promise<Record<string, unknown>> };
}

test.each(["auto", "linear"])(
  "with strategy %s, each check's argv reaches the target word for word, none of it run by a shell or templated",
  async (strategy) => {
    const out = join(dir, `argv-${strategy}`);
    const { done } = verify(strategy, [
      ["sh", "-c", 'cd "$1" && printf "%s\\n" "$2" > argv.txt', "verify", dir, HOSTILE],
      ["mv", "--", join(dir, "argv.txt"), out],
    ]);
    await expect(done).resolves.toMatchObject({ ok: 1, failed: 0, changed: 0 });
    expect(readFileSync(out, "utf8")).toBe(`${HOSTILE}\n`);
    expect(existsSync(join(dir, "PWNED"))).toBe(false);
  },
  300_000,
);

test("a check that exits non-zero fails the step, with the check's own last words in the error", async () => {
  const { done } = verify("auto", [["true"], ["sh", "-c", "echo the service is down; exit 3"]]);
  await expect(done).rejects.toThrow(/task 'Run each check' failed on target: non-zero return code: the service is down$/);
}, 300_000);
