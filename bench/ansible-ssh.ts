// Ansible's own cost per play over SSH, as the ansible_playbook operator runs it: a play shaped like
// playbooks/vm-configure.yml (facts, then nine small tasks) against an sshd on loopback, with
// Ansible's defaults (ssh -C, ControlPersist in ~/.ansible/cp, no pipelining, all facts) against
// the operator's settings (pipelining, the run's own control socket, no compression) and the fact
// subset vm-configure.yml gathers. Runs alternate (A/B pairs) so load on a shared machine hits
// both alike; medians and their ratio are printed.
// Usage: tsx bench/ansible-ssh.ts [--pairs 3]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sshReuseEnv } from "@svc/operators";
import { startSshd } from "@svc/testing";
import { percentile } from "./stats";

const { values } = parseArgs({ options: { pairs: { type: "string", default: "3" } } });
const PAIRS = Number(values.pairs);

const play = (subset: string) => `- name: A play shaped like vm-configure.yml
  hosts: all
  gather_facts: true
  ${subset}
  tasks:
${Array.from(
  { length: 3 },
  (_, i) => `    - ansible.builtin.command: hostname
      changed_when: false
    - ansible.builtin.lineinfile: { path: "{{ work }}/hosts", line: "127.0.1.1 demo${i}", create: true, mode: "0644" }
    - ansible.builtin.copy: { dest: "{{ work }}/motd${i}", content: "demo: created by svc\\n", mode: "0644" }`,
).join("\n")}
`;

function runOnce(dir: string, inventory: string, playbook: string, env: Record<string, string>): number {
  const t = process.hrtime.bigint();
  const r = spawnSync("ansible-playbook", ["-i", inventory, "-e", `work=${dir}/work`, playbook], {
    encoding: "utf8",
    env: { ...process.env, ANSIBLE_NOCOLOR: "1", ANSIBLE_RETRY_FILES_ENABLED: "0", ANSIBLE_HOST_KEY_CHECKING: "True", ...env },
  });
  if (r.status !== 0) throw new Error(`ansible-playbook failed:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

async function main(): Promise<void> {
  const sshd = await startSshd();
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-ansible-ssh-"));
  try {
    const inventory = path.join(dir, "inventory.json");
    const host = { ansible_host: "127.0.0.1", ansible_port: sshd.port, ansible_user: sshd.user, ansible_ssh_private_key_file: sshd.keyPath };
    const common = `-o UserKnownHostsFile=${sshd.knownHostsPath} -o StrictHostKeyChecking=yes -o BatchMode=yes`;
    writeFileSync(inventory, JSON.stringify({ all: { hosts: { target: { ...host, ansible_ssh_common_args: common } } } }));
    const allFacts = path.join(dir, "all-facts.yml");
    const subset = path.join(dir, "subset.yml");
    writeFileSync(allFacts, play(""));
    writeFileSync(subset, play("gather_subset: [network, virtual]"));
    const variants: [string, string, Record<string, string>][] = [
      ["Ansible defaults, all facts", allFacts, { ANSIBLE_CONTROL_PATH_DIR: path.join(dir, "cp-default") }],
      ["operator's SSH settings, all facts", allFacts, sshReuseEnv(dir)],
      ["operator's SSH settings, fact subset", subset, sshReuseEnv(dir)],
      ["the same with Mitogen", subset, { ...sshReuseEnv(dir), ANSIBLE_STRATEGY: "mitogen_linear" }],
    ];
    const times = variants.map(() => [] as number[]);
    runOnce(dir, inventory, subset, sshReuseEnv(dir)); // warm: Python's caches, the host key
    for (let p = 0; p < PAIRS; p++) {
      variants.forEach(([name, pb, env], i) => {
        const s = runOnce(dir, inventory, pb, env);
        times[i]!.push(s);
        process.stdout.write(`pair ${p + 1}: ${name}: ${s.toFixed(2)} s\n`);
      });
    }
    const med = times.map((t) => percentile(t, 50));
    process.stdout.write(`\nmedians of ${PAIRS} (load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores):\n`);
    variants.forEach(([name], i) => process.stdout.write(`  ${name.padEnd(40)} ${med[i]!.toFixed(2)} s  (×${(med[i]! / med[0]!).toFixed(2)})\n`));
    process.stdout.write(`${JSON.stringify({ pairs: PAIRS, medians_s: Object.fromEntries(variants.map(([n], i) => [n, Number(med[i]!.toFixed(3))])) })}\n`);
  } finally {
    await sshd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
