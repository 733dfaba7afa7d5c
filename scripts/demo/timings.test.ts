import { ansibleParts, computeTimings, formatTimings } from "./timings";

const T0 = Date.parse("2026-01-01T10:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const log = (s: number, line: string) => `[${at(s)}] {stdout} ${line}`;

// A run shaped like vm_deployment's create path: times in seconds after the sentence.
const tasks = [
  { task_id: "validate_host", operator: "host_check", start_date: at(3.2), end_date: at(4), queued_when: at(3.1) },
  { task_id: "create_vm", operator: "vm_create", start_date: at(4.1), end_date: at(9) },
  { task_id: "wait_ssh", operator: "vm_wait_ssh", start_date: at(9.2), end_date: at(36) },
  { task_id: "configure", operator: "ansible_playbook", start_date: at(36.2), end_date: at(60), try_number: 1 },
  { task_id: "verify", operator: "ansible_playbook", start_date: at(60.3), end_date: at(66), try_number: 1 },
  { task_id: "report", operator: "noop", start_date: at(66.1), end_date: at(66.2) },
  { task_id: "delete_vm", operator: "vm_delete", state: "skipped", start_date: null, end_date: null },
];
const ansibleLogs = {
  configure: [
    log(36.3, "ansible-playbook /p/vm-configure.yml on demo01 (127.0.0.1:2222)"),
    log(40, "PLAY [Configure a new VM] ****"),
    log(40.1, "TASK [Gathering Facts] ****"),
    log(48, "TASK [vm_prep : Set the hostname] ****"),
    log(58, "PLAY RECAP ****"),
    log(58.1, "demo01 : ok=9 changed=5"),
  ],
  verify: [log(63, "PLAY [Verify a VM over SSH] ****"), log(63.1, "TASK [Run each check] ****"), log(65.5, "PLAY RECAP ****")],
};

describe("pnpm demo --timings", () => {
  it("splits an Ansible task into start-up, fact gathering, the play without its facts, and the recap", () => {
    const parts = ansibleParts(ansibleLogs.configure, T0 + 36_200, T0 + 60_000);
    expect(parts.map((p) => [p.phase, Number(p.seconds.toFixed(1))])).toEqual([
      ["start-up (inventory, host keys, ansible-playbook)", 3.8],
      ['play "Configure a new VM"', 10.1],
      ["fact gathering", 7.9],
      ["recap and clean-up", 2],
    ]);
  });

  it("lists routing and planning, queueing, each task in start order with the Ansible parts, the hops and the report", () => {
    const phases = computeTimings({ sentAt: T0, answeredAt: T0 + 2_900, seenEndAt: T0 + 67_000, run: { queued_at: at(2.8), end_date: at(66.5) }, tasks, ansibleLogs });
    const top = phases.filter((p) => !p.part).map((p) => [p.phase.split(" (")[0], Number(p.seconds.toFixed(1))]);
    expect(top).toEqual([
      ["routing and planning", 2.9],
      ["queueing", 0.4],
      ["validate_host", 0.8],
      ["create_vm", 4.9],
      ["boot to SSH", 26.8],
      ["Ansible", 23.8],
      ["Ansible", 5.7],
      ["report", 0.1],
      ["between tasks", 0.9],
      ["report", 0.8],
    ]);
    // The skipped task has no times and is not listed; every Ansible task has its parts.
    expect(phases.some((p) => p.phase.includes("delete_vm"))).toBe(false);
    expect(phases.filter((p) => p.phase.startsWith("play ")).map((p) => p.phase)).toEqual(['play "Configure a new VM"', 'play "Verify a VM over SSH"']);
  });

  it("prints one row per phase, the parts indented, and the total", () => {
    const out = formatTimings(
      [
        { phase: "boot to SSH (wait_ssh)", seconds: 26.84 },
        { phase: "fact gathering", seconds: 7.9, part: true },
      ],
      67,
    );
    expect(out.split("\n")).toEqual([
      "where the time went:",
      "  boot to SSH (wait_ssh)                   26.8 s",
      "      fact gathering                        7.9 s",
      "  total (sentence to the end seen here)    67.0 s",
    ]);
  });
});
