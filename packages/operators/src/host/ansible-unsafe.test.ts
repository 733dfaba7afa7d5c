import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SvcConfig } from "@svc/config";
import { createTestOperatorContext, type TestSshd } from "@svc/testing";
import { playbookTarget, sshdTestConfig } from "./sshd-test-helpers";
import { unsafeExtraVarsYaml } from "./unsafe-vars";
import type { Operator } from "../types";

// Values a caller could give: Jinja that runs a command when templated, and shell syntax.
const PAYLOADS = ["{{ lookup('pipe','id') }}", "{% if true %}x{% endif %}", "$(id)", "`id`; touch /tmp/svc-pwned", "a\"b'c\\n{{ 7*7 }}", "ünï\u2028\u007f😀 {{ 1 }}"];
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: write what the playbook received
      ansible.builtin.copy:
        dest: "{{ out }}"
        content: "{{ {'values': values, 'nested': nested, 'secrets_file': secrets_file | default('unset')} | to_json }}"
`;

let sshd: TestSshd;
let dir: string;
let op: Operator;
let cfg: SvcConfig;

const target = playbookTarget("svc-unsafe-");
beforeAll(() => {
  ({ sshd, dir, op } = target);
  writeFileSync(join(dir, "write.yml"), PLAYBOOK);
  cfg = sshdTestConfig(sshd, dir, { SVC_SECRETS_FILE: "/etc/svc/{{ not-templated }}/secrets.yml" });
});

async function runPlaybook(target: Record<string, unknown>, out: string, extra: Record<string, unknown> = {}) {
  const args = op.args.parse({ playbook: "write.yml", ...target, extra_vars: { out, values: PAYLOADS, nested: { k: PAYLOADS[0], list: [{ v: PAYLOADS[0] }] }, ...extra } });
  await op.run(args, createTestOperatorContext(cfg, "ansible_playbook"));
  return JSON.parse(readFileSync(out, "utf8")) as { values: string[]; nested: unknown; secrets_file: string };
}

test("template and shell payloads reach a playbook run over SSH as literal text", async () => {
  const got = await runPlaybook({ hosts: [{ name: "target", host: "127.0.0.1", port: sshd.port, user: sshd.user }], private_key: sshd.keyPath }, join(dir, "ssh-out.json"));
  expect(got.values).toEqual(PAYLOADS);
  expect(got.nested).toEqual({ k: PAYLOADS[0], list: [{ v: PAYLOADS[0] }] });
}, 120_000);

test("a playbook run on the host itself gets the caller's values as literal text and its settings from configuration", async () => {
  const got = await runPlaybook({ on_host: true, settings: ["secrets_file"] }, join(dir, "local-out.json"));
  expect(got.values).toEqual(PAYLOADS);
  expect(got.secrets_file).toBe(cfg.secretsFile);
}, 120_000);

test("a caller's extra var cannot stand in for an operator setting", async () => {
  await expect(runPlaybook({ on_host: true, settings: ["secrets_file"] }, join(dir, "refused.json"), { secrets_file: "/tmp/mine.yml" })).rejects.toThrow(
    /secrets_file.*configuration only/,
  );
}, 60_000);

test("settings outside the known list are refused by the args schema", () => {
  expect(op.args.safeParse({ playbook: "write.yml", on_host: true, settings: ["playbooks_dir"] }).success).toBe(false);
  expect(op.args.safeParse({ playbook: "write.yml", on_host: true, vm: "web" }).success).toBe(false);
});

test("the extra-vars file tags every caller string, keys included, and refuses names Ansible cannot use", () => {
  const yaml = unsafeExtraVarsYaml({ a: "x", n: 3, b: true, l: ["y", null], o: { "k{{": "z" } }, { secrets_file: "/s" });
  expect(yaml).toBe('"a": !unsafe "x"\n"n": 3\n"b": true\n"l": [!unsafe "y", null]\n"o": {!unsafe "k{{": !unsafe "z"}\n"secrets_file": !unsafe "/s"\n');
  expect(() => unsafeExtraVarsYaml({ "bad name": 1 })).toThrow(/not a valid Ansible variable name/);
  expect(unsafeExtraVarsYaml({})).toBe("{}\n");
  expect(unsafeExtraVarsYaml({ s: "ü\u2028\u007f😀" })).toBe('"s": !unsafe "\\u00fc\\u2028\\u007f\\U0001f600"\n');
});
