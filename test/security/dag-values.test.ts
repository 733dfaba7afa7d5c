import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseDagFolder, type DagDefinition } from "@svc/dags";
import { defaultOperators } from "@svc/operators";

const DAGS_DIR = path.join(__dirname, "..", "..", "dags");
/** Caller-controlled template roots: run params and upstream outputs. */
const CALLER_VALUE = /\{\{[^}]*\b(params|ti|conf)\b/;

let dags: DagDefinition[];
beforeAll(async () => {
  // Every settings key the files name, so the catalogue loads whatever settings it grows.
  const settings: Record<string, string> = {};
  for (const f of readdirSync(DAGS_DIR).filter((n) => n.endsWith(".yaml"))) {
    for (const m of readFileSync(path.join(DAGS_DIR, f), "utf8").matchAll(/settings\.([A-Za-z_][A-Za-z0-9_]*)/g)) settings[m[1]!] = m[1] === "domain" ? "lab.example.com" : "x";
  }
  const results = await parseDagFolder(DAGS_DIR, { catalog: defaultOperators(), settings });
  dags = results.flatMap((r) => (r.ok ? [r.dag] : []));
  expect(dags.length).toBe(results.length);
});

test("no DAG puts a caller's value on a command line: host commands are fixed, values go to Ansible as !unsafe extra vars", () => {
  const offenders: string[] = [];
  for (const dag of dags) {
    for (const t of dag.tasks) {
      if ((t.operator === "ssh" || t.operator === "shell") && CALLER_VALUE.test(JSON.stringify(t.args))) offenders.push(`${dag.dag_id}.${t.task_id} (${t.operator})`);
      if (t.operator === "ansible_playbook" && CALLER_VALUE.test(JSON.stringify({ playbook: t.args.playbook, settings: t.args.settings })))
        offenders.push(`${dag.dag_id}.${t.task_id} (playbook)`);
    }
  }
  expect(offenders).toEqual([]);
});

test("no DAG declares an operator setting as a param", () => {
  const SETTINGS = ["playbooks_dir", "secrets_file", "pull_secret_path", "inventory_dir", "vault_password_file", "ssh_user", "ssh_host", "ssh_key_path"];
  const found = dags.flatMap((d) =>
    Object.keys(d.params)
      .filter((p) => SETTINGS.includes(p))
      .map((p) => `${d.dag_id}.${p}`),
  );
  expect(found).toEqual([]);
});
