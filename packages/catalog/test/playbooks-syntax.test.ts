import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CATALOG_PATHS } from "../src/paths";

const { playbooksDir, dagsDir } = CATALOG_PATHS;
/** Top-level *.yml files are playbooks; roles/, tasks/, templates/ and vars/ hold their parts. */
const playbooks = readdirSync(playbooksDir)
  .filter((f) => f.endsWith(".yml"))
  .sort();

function run(argv: string[]) {
  return spawnSync(argv[0]!, argv.slice(1), { cwd: playbooksDir, encoding: "utf8", env: { ...process.env, ANSIBLE_NOCOLOR: "1", NO_COLOR: "1" } });
}

test("the playbooks folder has the catalogue's playbooks", () => {
  expect(playbooks).toEqual(
    expect.arrayContaining([
      "vm-configure.yml",
      "identity-server.yml",
      "ca-server.yml",
      "router.yml",
      "router-host.yml",
      "registry.yml",
      "cluster-prepare.yml",
      "cluster-nodes.yml",
      "cluster-wait.yml",
      "host-records.yml",
      "health-check.yml",
    ]),
  );
});

test.each(playbooks)("%s passes ansible-playbook --syntax-check", (file) => {
  const r = run(["ansible-playbook", "--syntax-check", "-i", "localhost,", file]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.not.stringMatching(/ERROR/) });
});

test("every playbook a DAG names exists, and every playbook is used by a DAG", () => {
  const named = new Set<string>();
  for (const f of readdirSync(dagsDir).filter((f) => f.endsWith(".yaml"))) {
    for (const m of readFileSync(path.join(dagsDir, f), "utf8").matchAll(/(?:playbook:\s*|-\s+)([\w.-]+\.yml)\b/g)) named.add(m[1]!);
  }
  expect([...named].filter((p) => !playbooks.includes(p))).toEqual([]);
  expect(playbooks.filter((p) => !named.has(p))).toEqual([]);
});

test("ansible-lint passes on the playbooks, roles and task files with the production profile", () => {
  const files = [...playbooks, ...["roles", "tasks"].flatMap((d) => readdirSync(path.join(playbooksDir, d)).map((f) => `${d}/${f}`))];
  // --offline: no Galaxy lookups; the playbooks use ansible-core modules only.
  const r = run(["ansible-lint", "--offline", "--nocolor", "-p", "--profile", "production", ...files]);
  expect({ status: r.status, out: r.stdout.trim() }).toEqual({ status: 0, out: "" });
}, 300_000);
