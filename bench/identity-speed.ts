// Where identity_deployment's time goes, measured beside a plain vm_deployment in one run of the
// same stack (the product stack of test/e2e: scheduler, two workers, the debian12 image, TCG VMs):
// each task's seconds and, for the Ansible tasks, each Ansible task's seconds from the log's own
// timestamps; then identity / vm. With --lab, also a whole lab_deployment: the lab's seconds
// against its critical path from the child runs' own durations (router + the longer of identity,
// and CA followed by registry). Needs root, libvirt and the VM lock (it waits for other VM tests).
//
//   pnpm exec tsx bench/identity-speed.ts [--lab]
import { randomBytes } from "node:crypto";
import { runMain } from "./lib/run-main";
import { startProductStack, strongPassword, type ProductStack } from "../test/e2e/product-stack";

const LABEL = "idmspeed";
const COMMON = { image: "debian12", nets: ["user"], memory_mb: 1536, cpus: 2, disk_gb: 4, ssh_wait_timeout: 1200 };
const secs = (a: Date | null, b: Date | null) => (a && b ? (b.getTime() - a.getTime()) / 1000 : 0);

/** A run's seconds (queued to end, as the grid shows it) and its tasks' seconds in start order. */
async function runTimes(stack: ProductStack, dagId: string, runId: string) {
  const run = await stack.db.selectFrom("dag_run").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirstOrThrow();
  const tis = await stack.db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
  const tasks = tis
    .filter((t) => t.start_date && t.end_date && t.state !== "skipped")
    .sort((a, b) => a.start_date!.getTime() - b.start_date!.getTime())
    .map((t) => ({ task: t.task_id, seconds: secs(t.start_date, t.end_date) }));
  return { seconds: secs(run.start_date, run.end_date), tasks };
}

/** Each Ansible task's seconds in one task's log: from its TASK line to the next TASK, PLAY or recap line. */
async function ansibleTasks(stack: ProductStack, dagId: string, runId: string, taskId: string) {
  const rows = await stack.db
    .selectFrom("task_log")
    .select(["line", "ts"])
    .where("dag_id", "=", dagId)
    .where("run_id", "=", runId)
    .where("task_id", "=", taskId)
    .orderBy("id")
    .execute();
  const marks = rows.filter((r) => /^(TASK \[|PLAY \[|PLAY RECAP)/.test(r.line));
  const out = new Map<string, number>();
  marks.forEach((m, i) => {
    const next = marks[i + 1];
    if (!next || !m.line.startsWith("TASK [")) return;
    const name = /^TASK \[(.*)\]/.exec(m.line)![1]!;
    out.set(name, (out.get(name) ?? 0) + secs(m.ts, next.ts));
  });
  return [...out.entries()].sort((a, b) => b[1] - a[1]);
}

const table = (rows: { task: string; seconds: number }[]) => rows.map((r) => `| ${r.task} | ${r.seconds.toFixed(1)} |`).join("\n");

async function main(): Promise<void> {
  const lab = process.argv.includes("--lab");
  const stack = await startProductStack(LABEL, {
    vault_ipa_admin_password: strongPassword(),
    vault_ca_auth_key: randomBytes(32).toString("hex"),
    vault_registry_admin_password: strongPassword(),
  });
  try {
    const vm = await stack.run("vm_deployment", { ...COMMON, action: "create", vm_name: `${LABEL}-vm` }, 1_800_000);
    if (vm.state !== "success") throw new Error(`vm_deployment ${vm.state}`);
    await stack.run("vm_deployment", { action: "delete", vm_name: `${LABEL}-vm` }, 600_000);
    const idm = await stack.run("identity_deployment", { ...COMMON, vm_name: `${LABEL}-dc`, domain: "speed.example.org" }, 3_000_000);
    if (idm.state !== "success") throw new Error(`identity_deployment ${idm.state}`);
    const vmT = await runTimes(stack, "vm_deployment", vm.runId);
    const idmT = await runTimes(stack, "identity_deployment", idm.runId);
    await stack.run("identity_deployment", { action: "delete", vm_name: `${LABEL}-dc`, domain: "speed.example.org" }, 600_000);
    const lines = [
      `vm_deployment ${vmT.seconds.toFixed(1)} s, identity_deployment ${idmT.seconds.toFixed(1)} s: identity / vm = ${(idmT.seconds / vmT.seconds).toFixed(2)}`,
      "",
      "| vm_deployment task | s |",
      "| --- | --- |",
      table(vmT.tasks),
      "",
      "| identity_deployment task | s |",
      "| --- | --- |",
      table(idmT.tasks),
      "",
      "| identity configure: Ansible task (top 15) | s |",
      "| --- | --- |",
      table((await ansibleTasks(stack, "identity_deployment", idm.runId, "configure")).slice(0, 15).map(([task, seconds]) => ({ task, seconds }))),
    ];
    // The identity figures first: a lab takes many minutes more.
    process.stdout.write(`${lines.join("\n")}\n`);
    lines.length = 0;
    if (lab) {
      const conf = { lab_name: "spd", domain: "spd.example.org", lan_prefix: "192.168.234" };
      const l = await stack.run("lab_deployment", conf, 5_400_000);
      if (l.state !== "success") throw new Error(`lab_deployment ${l.state}`);
      const children = await stack.db.selectFrom("dag_run").selectAll().where("parent_dag_id", "=", "lab_deployment").where("parent_run_id", "=", l.runId).execute();
      const d = (id: string) => children.filter((c) => c.dag_id === id).reduce((s, c) => s + secs(c.start_date, c.end_date), 0);
      const critical = d("router_deployment") + Math.max(d("identity_deployment"), d("ca_deployment") + d("registry_deployment"));
      const labT = await runTimes(stack, "lab_deployment", l.runId);
      lines.push(
        "",
        `lab ${labT.seconds.toFixed(1)} s; children: router ${d("router_deployment").toFixed(1)} s, identity ${d("identity_deployment").toFixed(1)} s, CA ${d("ca_deployment").toFixed(1)} s, registry ${d("registry_deployment").toFixed(1)} s`,
        `critical path (router + max(identity, CA + registry)) ${critical.toFixed(1)} s: lab / critical path = ${(labT.seconds / critical).toFixed(3)}`,
      );
      await stack.run("lab_deployment", { ...conf, action: "delete" }, 1_800_000);
    }
    if (lines.length) process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await stack.stop();
  }
}

runMain(main);
