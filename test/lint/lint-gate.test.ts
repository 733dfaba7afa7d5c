// The lint gate: each of the tools `pnpm lint` runs, with the repository's own settings,
// rejects its kind of finding in a scratch file and accepts the corrected file.
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(__dirname, "../..");
const BIN = join(REPO, "node_modules/.bin");
let dir: string;

function run(cmd: string, args: string[], timeout = 60_000): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", timeout });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function write(rel: string, text: string): string {
  const path = join(dir, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-lint-gate-"));
  // A project of its own so the type-aware rules have a program; the compiler settings are the repository's.
  write("tsconfig.json", JSON.stringify({ extends: join(REPO, "tsconfig.base.json"), compilerOptions: { noEmit: true, types: [] }, include: ["packages/*/src/**/*.ts"] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("pnpm lint runs eslint, prettier --check, shellcheck and the Ansible checks over the tree", () => {
  const lint = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.lint!;
  expect(lint).toMatch(/\beslint\b.* \./);
  expect(lint).toContain("prettier --check");
  expect(lint).toContain("scripts/lint-shell.sh");
  expect(lint).toContain("scripts/lint-ansible.sh");
});

test("eslint fails on a promise that is never awaited and passes once it is awaited", () => {
  const head = "async function save(): Promise<void> {}\n\n";
  const bad = write("packages/scratch/src/unawaited.ts", `${head}export function handler(): void {\n  save();\n}\n`);
  const good = write("packages/scratch/src/awaited.ts", `${head}export async function handler(): Promise<void> {\n  await save();\n}\n`);
  const config = join(REPO, "eslint.config.mjs");
  const failed = run(join(BIN, "eslint"), ["--config", config, bad]);
  expect(failed.status).toBe(1);
  expect(failed.out).toContain("@typescript-eslint/no-floating-promises");
  expect(run(join(BIN, "eslint"), ["--config", config, good])).toEqual({ status: 0, out: "" });
});

test("prettier --check fails on an unformatted file and passes on the formatted one", () => {
  const config = join(REPO, ".prettierrc.json");
  const ugly = write("ugly.ts", "export const x = {a:1,b:'two'}\n");
  const neat = write("neat.ts", 'export const x = { a: 1, b: "two" };\n');
  const failed = run(join(BIN, "prettier"), ["--config", config, "--check", ugly]);
  expect(failed.status).toBe(1);
  expect(failed.out).toContain("ugly.ts");
  expect(run(join(BIN, "prettier"), ["--config", config, "--check", neat]).status).toBe(0);
});

test("shellcheck fails on an unquoted $var in a script and passes once it is quoted", () => {
  const lintShell = join(REPO, "scripts/lint-shell.sh");
  const bad = write("bad.sh", "#!/usr/bin/env bash\nset -euo pipefail\ntarget=$1\nrm -rf $target/cache\n");
  const good = write("good.sh", '#!/usr/bin/env bash\nset -euo pipefail\ntarget=$1\nrm -rf "$target/cache"\n');
  const failed = run("bash", [lintShell, bad]);
  expect(failed.status).toBe(1);
  expect(failed.out).toContain("SC2086");
  expect(run("bash", [lintShell, good]).status).toBe(0);
});

describe("scripts/lint-ansible.sh (ansible-playbook --syntax-check, then ansible-lint with .ansible-lint)", () => {
  const lintAnsible = join(REPO, "scripts/lint-ansible.sh");
  const play = (task: string) => `---\n- name: Restart the web server\n  hosts: all\n  tasks:\n    - name: Restart nginx\n${task}`;
  const ANSIBLE_TIMEOUT = 180_000;

  test("the config keeps the production profile, works offline, and gives a reason for every rule it turns off", () => {
    const config = readFileSync(join(REPO, ".ansible-lint"), "utf8");
    expect(config).toMatch(/^profile: production$/m);
    expect(config).toMatch(/^offline: true$/m);
    // Each entry of skip_list / warn_list has a comment line right above it.
    const lines = config.split("\n");
    const listed = lines.flatMap((line, i) =>
      /^\s+- [a-z]/.test(line) &&
      /^(skip|warn)_list:/.test(
        lines
          .slice(0, i)
          .reverse()
          .find((l) => /^\S/.test(l)) ?? "",
      )
        ? [i]
        : [],
    );
    expect(listed.filter((i) => !/^\s*#/.test(lines[i - 1]!))).toEqual([]);
  });

  test(
    "ansible-lint fails on a task using shell: for a command a module covers, and on command: running one",
    () => {
      const shell = write("ansible/shell.yml", play("      ansible.builtin.shell: systemctl restart nginx\n"));
      const command = write("ansible/command.yml", play("      ansible.builtin.command: systemctl restart nginx\n      changed_when: true\n"));
      const byShell = run("bash", [lintAnsible, shell], ANSIBLE_TIMEOUT);
      expect(byShell.status).toBe(1);
      expect(byShell.out).toMatch(/shell\.yml:\d+: command-instead-of-shell/);
      expect(byShell.out).toMatch(/shell\.yml:\d+: command-instead-of-module/);
      const byCommand = run("bash", [lintAnsible, command], ANSIBLE_TIMEOUT);
      expect(byCommand.status).toBe(1);
      expect(byCommand.out).toMatch(/command\.yml:\d+: command-instead-of-module/);
    },
    2 * ANSIBLE_TIMEOUT,
  );

  test(
    "the same play using the service module passes both the syntax check and ansible-lint",
    () => {
      const good = write("ansible/service.yml", play("      ansible.builtin.service:\n        name: nginx\n        state: restarted\n"));
      expect(run("bash", [lintAnsible, good], ANSIBLE_TIMEOUT)).toEqual({ status: 0, out: "" });
    },
    ANSIBLE_TIMEOUT,
  );

  test(
    "a playbook with a syntax error fails the syntax check",
    () => {
      const broken = write("ansible/broken.yml", play("      ansible.builtin.service:\n        name: nginx\n        state: restarted\n      ansible.builtin.ping:\n"));
      const failed = run("bash", [lintAnsible, broken], ANSIBLE_TIMEOUT);
      expect(failed.status).toBe(1);
      expect(failed.out).toContain(`lint-ansible: syntax check failed: ${broken}`);
      expect(failed.out).toContain("conflicting action statements");
    },
    ANSIBLE_TIMEOUT,
  );

  test("without ansible-lint on PATH the script says how to install it and fails", () => {
    // A PATH with bash and the coreutils the script needs, but neither Ansible tool.
    const bin = join(dir, "bin-without-ansible");
    mkdirSync(bin, { recursive: true });
    for (const tool of ["bash", "dirname", "realpath"]) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const r = spawnSync("/usr/bin/bash", [lintAnsible], { cwd: dir, encoding: "utf8", env: { PATH: bin } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("install with: apt-get install ansible-core ansible-lint");
  });
});
