import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SvcConfig } from "@svc/config";
import { createTestOperatorContext, type TestSshd } from "@svc/testing";
import { playbookTarget, sshdTestConfig } from "./sshd-test-helpers";
import type { Operator } from "../types";

// Each task reports, from the target, the SSH connection it came over, the control sockets in
// the inventory directory, and the module files the task's own run left in the remote temp dir.
const PLAYBOOK = `- hosts: all
  gather_facts: false
  vars:
    ansible_remote_tmp: "{{ out_dir }}/remote-tmp"
  tasks:
    - name: first task
      ansible.builtin.shell: >-
        echo "$SSH_CONNECTION";
        ls -d {{ inv_dir }}/svc-ansible.*/cp-* 2>/dev/null | wc -l;
        find {{ out_dir }}/remote-tmp -mindepth 1 2>/dev/null | wc -l
      register: first
    - name: second task
      ansible.builtin.shell: 'echo "$SSH_CONNECTION"'
      register: second
    - name: write what the tasks saw
      ansible.builtin.copy:
        dest: "{{ out_dir }}/seen.json"
        content: "{{ {'first': first.stdout_lines, 'second': second.stdout_lines} | to_json }}"
`;

let sshd: TestSshd;
let dir: string;
let op: Operator;
let cfg: SvcConfig;

const target = playbookTarget("svc-ssh-reuse-");
beforeAll(() => {
  ({ sshd, dir, op } = target);
  // Ansible's own SSH plumbing is what this file checks (Mitogen brings its own: ansible-strategy.test.ts).
  cfg = sshdTestConfig(sshd, dir, { SVC_ANSIBLE_STRATEGY: "linear" });
});

test("a play reuses one SSH connection whose socket is in the run's temp dir, and pipelines its tasks (no module files on the target)", async () => {
  writeFileSync(join(dir, "probe.yml"), PLAYBOOK);
  const args = op.args.parse({
    playbook: "probe.yml",
    hosts: [{ name: "target", host: "127.0.0.1", port: sshd.port, user: sshd.user }],
    private_key: sshd.keyPath,
    extra_vars: { out_dir: dir, inv_dir: cfg.inventoryDir },
  });
  await op.run(args, createTestOperatorContext(cfg, "ansible_playbook"));
  const seen = JSON.parse(readFileSync(join(dir, "seen.json"), "utf8")) as { first: string[]; second: string[] };
  const [conn1, sockets, moduleFiles] = seen.first;
  // The same client address and port: the second task came over the first task's connection.
  expect(conn1).toMatch(/^127\.0\.0\.1 \d+ 127\.0\.0\.1 \d+$/);
  expect(seen.second[0]).toBe(conn1);
  // The control socket is the run's own (under the inventory directory's svc-ansible.* temp dir)...
  expect(Number(sockets)).toBe(1);
  // ...and the running task's module came over stdin: nothing was copied into the remote temp dir.
  expect(Number(moduleFiles)).toBe(0);
}, 400_000);
