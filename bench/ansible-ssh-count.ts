// SSH exchanges per play, a count that load does not change: Ansible's defaults with all facts
// against the ansible_playbook operator's settings (pipelining, its own control socket) with the
// fact subset vm-configure.yml gathers; both run once with -vvv against an sshd on loopback and the
// SSH: EXEC and PUT lines are counted. Usage: tsx bench/ansible-ssh-count.ts
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { sshReuseEnv } from "@svc/operators";
import { startSshd } from "@svc/testing";
const run = (args: string[], env: Record<string, string>) =>
  new Promise<string>((res) => {
    const c = spawn("ansible-playbook", args, { env: { ...process.env, ...env } });
    let out = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (out += d));
    c.on("close", () => res(out));
  });
void (async () => {
  const s = await startSshd();
  const d = mkdtempSync("/tmp/svc-ansible-count-");
  writeFileSync(
    `${d}/inv.json`,
    JSON.stringify({
      all: {
        hosts: {
          t: {
            ansible_host: "127.0.0.1",
            ansible_port: s.port,
            ansible_user: s.user,
            ansible_ssh_private_key_file: s.keyPath,
            ansible_ssh_common_args: `-o UserKnownHostsFile=${s.knownHostsPath} -o StrictHostKeyChecking=yes`,
          },
        },
      },
    }),
  );
  const tasks = `  tasks:\n    - ansible.builtin.command: hostname\n    - ansible.builtin.copy: { dest: "${d}/motd", content: "x\\n", mode: "0644" }\n    - ansible.builtin.lineinfile: { path: "${d}/hosts", line: "127.0.1.1 demo", create: true, mode: "0644" }\n`;
  writeFileSync(`${d}/all.yml`, `- hosts: all\n  gather_facts: true\n${tasks}`);
  writeFileSync(`${d}/sub.yml`, `- hosts: all\n  gather_facts: true\n  gather_subset: [network, virtual]\n${tasks}`);
  const t0 = Date.now();
  const [a, b] = await Promise.all([
    run(["-vvv", "-i", `${d}/inv.json`, `${d}/all.yml`], { ANSIBLE_CONTROL_PATH_DIR: `${d}/cpd` }),
    run(["-vvv", "-i", `${d}/inv.json`, `${d}/sub.yml`], sshReuseEnv(d)),
  ]);
  const count = (o: string) => ({ ssh_exec: (o.match(/SSH: EXEC/g) ?? []).length, put: (o.match(/PUT /g) ?? []).length, ok: /failed=0/.test(o) });
  console.log(JSON.stringify({ defaults_all_facts: count(a), operator_subset: count(b), seconds: (Date.now() - t0) / 1000 }));
  await s.stop();
})();
