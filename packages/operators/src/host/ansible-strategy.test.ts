import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { LocalExecutor, type HostExecutor } from "@svc/host";
import { createTestOperatorContext, type TestSshd } from "@svc/testing";
import { ansibleStrategyFor, forgetAnsibleStrategyProbes } from "./ansible-strategy";
import { playbookTarget, sshdTestConfig } from "./sshd-test-helpers";
import type { Operator } from "../types";

// The task reports the process that ran it: under Mitogen a persistent interpreter named
// "python3(mitogen:…)", under Ansible's linear strategy a shell started for that one task.
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: who ran me
      ansible.builtin.shell: "tr '\\\\0' ' ' < /proc/$PPID/cmdline"
      register: parent
      changed_when: false
    - name: a module with stdin, as the product roles pass secrets
      ansible.builtin.command: cat
      args: { stdin: "{{ marker }}" }
      register: echoed
      changed_when: false
    - name: write what the tasks saw
      ansible.builtin.copy:
        dest: "{{ out_dir }}/{{ marker }}.json"
        content: "{{ {'parent': parent.stdout, 'stdin': echoed.stdout} | to_json }}"
        mode: "0644"
`;

let sshd: TestSshd;
let dir: string;
let op: Operator;
const configs: Record<string, SvcConfig> = {};

const target = playbookTarget("svc-ansible-strategy-");
beforeAll(() => {
  ({ sshd, dir, op } = target);
  writeFileSync(join(dir, "probe.yml"), PLAYBOOK);
  for (const strategy of ["auto", "linear", "mitogen_linear"]) {
    configs[strategy] = sshdTestConfig(sshd, join(dir, strategy), { SVC_PLAYBOOKS_DIR: dir, SVC_ANSIBLE_STRATEGY: strategy });
  }
});

async function play(strategy: string): Promise<{ log: string; parent: string; stdin: string }> {
  const ctx = createTestOperatorContext(configs[strategy]!, `play_${strategy}`);
  const args = op.args.parse({
    playbook: "probe.yml",
    hosts: [{ name: "target", host: "127.0.0.1", port: sshd.port, user: sshd.user }],
    private_key: sshd.keyPath,
    extra_vars: { out_dir: dir, marker: `m-${strategy}` },
  });
  await op.run(args, ctx);
  const seen = JSON.parse(readFileSync(join(dir, `m-${strategy}.json`), "utf8")) as { parent: string; stdin: string };
  return { log: ctx.text(), ...seen };
}

test("auto takes Mitogen on a host where ansible-mitogen is installed: the play's tasks run in Mitogen's interpreter on the target, stdin included, and the log says why", async () => {
  const r = await play("auto");
  expect(r.log).toMatch(/ansible strategy mitogen_linear: ansible-mitogen is installed on the host/);
  expect(r.parent).toMatch(/python3?\(mitogen:/);
  expect(r.stdin).toBe("m-auto");
}, 300_000);

test("linear, named, runs Ansible's own strategy: each task in a process of its own, no Mitogen", async () => {
  const r = await play("linear");
  expect(r.log).toMatch(/ansible strategy linear: SVC_ANSIBLE_STRATEGY=linear/);
  expect(r.parent).not.toMatch(/mitogen/);
  expect(r.stdin).toBe("m-linear");
}, 300_000);

test("auto falls back to linear, saying how to get Mitogen, on a host where ansible_mitogen does not import; the answer is kept per host", async () => {
  forgetAnsibleStrategyProbes();
  const local = new LocalExecutor({ env: process.env });
  let probes = 0;
  // This host's python3 made to fail the import, as on a host without the package.
  const without: HostExecutor = {
    target: "host-without-mitogen",
    run: (argv, o) =>
      argv[0] === "sh" && /ansible_mitogen/.test(argv[2] ?? "") ? (probes++, local.run(["python3", "-c", "import ansible_mitogen_absent"], o)) : local.run(argv, o),
    close: () => local.close(),
  };
  const first = await ansibleStrategyFor(without, "auto");
  expect(first).toEqual({
    strategy: "linear",
    why: expect.stringMatching(/not usable on the host \(install the ansible-mitogen package.*\): ModuleNotFoundError: No module named 'ansible_mitogen_absent'/),
  });
  await ansibleStrategyFor(without, "auto");
  expect(probes).toBe(1);
  // A named strategy is taken as it is, without probing.
  expect((await ansibleStrategyFor(without, "mitogen_linear")).strategy).toBe("mitogen_linear");
  expect(probes).toBe(1);
});

test("SVC_ANSIBLE_STRATEGY accepts only auto, linear and mitogen_linear", () => {
  expect(() => loadConfig({ SVC_ANSIBLE_STRATEGY: "free" })).toThrow(/SVC_ANSIBLE_STRATEGY/);
  expect(loadConfig({}).ansibleStrategy).toBe("auto");
});
