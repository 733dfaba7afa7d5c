// playbooks/tasks/firewall-open.yml decides from firewall-cmd's answer whether the permanent rules
// changed, and reloads firewalld when they did (permanent rules are inactive until the reload).
// firewalld cannot run on this host, so the task file's own conditions are evaluated by Ansible
// itself, with the result firewall-cmd gives in each case.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { CATALOG_PATHS } from "../src/paths";

interface Task {
  name: string;
  changed_when?: string;
  when?: string;
}
const tasks = parse(readFileSync(path.join(CATALOG_PATHS.playbooksDir, "tasks/firewall-open.yml"), "utf8")) as Task[];
const task = (name: string): Task => {
  const t = tasks.find((x) => x.name === name);
  if (!t) throw new Error(`no task '${name}' in tasks/firewall-open.yml`);
  return t;
};

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), "svc-firewall-open-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Evaluates an Ansible condition (as changed_when/when are) with the given variables, by real Ansible. */
function condition(expr: string, vars: Record<string, unknown>): boolean {
  const varsFile = path.join(dir, "vars.json");
  writeFileSync(varsFile, JSON.stringify(vars));
  const r = spawnSync("ansible", ["localhost", "-i", "localhost,", "-c", "local", "-m", "ansible.builtin.debug", "-a", `msg="{{ (${expr}) | bool }}"`, "-e", `@${varsFile}`], {
    encoding: "utf8",
    env: { ...process.env, ANSIBLE_NOCOLOR: "1" },
  });
  if (r.status !== 0 || !r.stdout.includes("SUCCESS =>")) throw new Error(`ansible failed: ${r.stdout}${r.stderr}`);
  return (JSON.parse(r.stdout.slice(r.stdout.indexOf("=>") + 2)) as { msg: boolean }).msg;
}

const ARGS = ["--add-service=http", "--add-service=https", "--add-port=8443/tcp"];
/** What the add task registers: firewall-cmd exits 0 and warns once for each item it already had. */
const added = (alreadyEnabled: string[]) => ({
  rc: 0,
  stdout: "success",
  stderr: alreadyEnabled.map((item) => `Warning: ALREADY_ENABLED: ${item}`).join("\n"),
});
/** Whether the add task reports changed, and then whether the reload runs. */
function outcome(alreadyEnabled: string[]): { changed: boolean; reload: boolean } {
  const changed = condition(task("Open the services and ports").changed_when!, { svc_firewall_add: added(alreadyEnabled), svc_firewall_args: ARGS });
  const reload = condition(task("Reload firewalld").when!, { svc_firewalld_state: { rc: 0 }, svc_firewall_add: { ...added(alreadyEnabled), changed } });
  return { changed, reload };
}

test("nothing enabled yet: the rules change and firewalld reloads", () => {
  expect(outcome([])).toEqual({ changed: true, reload: true });
}, 120_000);

test("one service already enabled and two items new: the rules still change and firewalld reloads so the new ones take effect", () => {
  expect(outcome(["http"])).toEqual({ changed: true, reload: true });
}, 120_000);

test("every item already enabled: no change and no reload", () => {
  expect(outcome(["http", "https", "8443:tcp"])).toEqual({ changed: false, reload: false });
}, 120_000);
