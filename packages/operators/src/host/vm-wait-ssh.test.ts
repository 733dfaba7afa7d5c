import { loadConfig } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor, RunResult } from "@svc/host";
import { createTestOperatorContext } from "@svc/testing";
import { ansibleStrategyFor, forgetAnsibleStrategyProbes } from "./ansible-strategy";
import { createHostOperators } from "./index";

// vm_wait_ssh's probing, through our own HostExecutor interface recording what it was asked to run
// and answering as the VM CLI and the host's scanning loop would (the real ones are in
// vm-e2e.test.ts and packages/vm/test/scan-host-keys.test.ts).
const KEY = "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey\n";
const info = (state: string) => JSON.stringify({ name: "web1", state, image: "alpha", memory_mb: 512, cpus: 1, ip: null, ssh_host: "127.0.0.1", ssh_port: 2222, ssh_user: "root" });
const cfg = loadConfig({ SVC_SSH_HOST: "127.0.0.1", SVC_VM_DISKS_DIR: "/conf/vms" });

const BANNER = "# 127.0.0.1:2222 SSH-2.0-OpenSSH_9.2p1\n";

/**
 * A host whose sshd in the VM answers from the `answerAt`-th scanning command on (with `answer`:
 * its key and banner, or a banner alone); the VM's state per info read.
 */
function host(answerAt: number, stateAt: (read: number) => string = () => "running", answer = BANNER + KEY) {
  const calls: string[][] = [];
  let scans = 0;
  let reads = 0;
  const reply = (argv: readonly string[]): Partial<RunResult> => {
    if (argv[0] === "svc-vm") return { stdout: info(stateAt(++reads)) };
    // The loop pins what it found in the VM's directory (its 9th word) and says so, as the host's would.
    if (argv[0] === "sh" && argv[2]?.includes("ssh-keyscan"))
      return { stdout: ++scans < answerAt ? "" : answer.includes(" ssh-ed25519 ") && argv[8] ? `${answer}svc-pin: 0\n` : answer };
    if (argv[0] === "ssh-keyscan") return { stdout: KEY };
    return {};
  };
  const ex: HostExecutor = {
    target: "root@127.0.0.1:22",
    run: async (argv) => (calls.push([...argv]), { code: 0, stdout: "", stderr: "", ...reply(argv) }),
    close: async () => undefined,
  };
  const op = createHostOperators({ executor: () => ex }).find((o) => o.name === "vm_wait_ssh")!;
  const run = (args: Record<string, unknown>) => op.run(op.args.parse({ name: "web1", ...args }), createTestOperatorContext(cfg, "vm_wait_ssh"));
  const loops = () => calls.filter((a) => a[0] === "sh" && a[2]?.includes("ssh-keyscan"));
  const count = (cmd: string) => calls.filter((a) => a[0] === cmd).length;
  const scanTimeouts = () => calls.filter((a) => a[0] === "ssh-keyscan").map((a) => a[a.indexOf("-T") + 1]);
  return { run, count, loops, scanTimeouts, calls: () => calls, ex };
}

describe("vm_wait_ssh probing", () => {
  it("reads the VM's state, then scans its endpoint in one command on the host per round, until it answers", async () => {
    const h = host(3);
    await expect(h.run({ interval_s: 0.3 })).resolves.toMatchObject({ ssh_host: "127.0.0.1", ssh_port: 2222, host_keys: [KEY.trim()] });
    expect(h.loops()).toHaveLength(3);
    expect(h.count("svc-vm")).toBe(3);
    // Seconds the round goes on, the endpoint, the pause between scans: argv words, not script text.
    expect(h.loops()[0]!.slice(4)).toEqual(["20", "127.0.0.1", "2222", "0.3", "/conf/vms/web1"]);
    expect(h.count("ssh-keyscan")).toBe(0);
    // The keys were pinned by the loop's own command: nothing ran after it.
    expect(h.calls().at(-1)).toBe(h.loops().at(-1));
  });

  it("probes the host's Ansible strategy while it waits, so the VM's first play finds the answer there", async () => {
    forgetAnsibleStrategyProbes();
    const h = host(2);
    await h.run({ interval_s: 0.2 });
    const probes = () => h.calls().filter((a) => a[0] === "sh" && a[2]?.includes("ansible_mitogen"));
    expect(probes()).toHaveLength(1);
    // The play asks on the same host: answered from the probe made during the wait, nothing more runs.
    const before = h.calls().length;
    await expect(ansibleStrategyFor(h.ex, cfg.ansibleStrategy)).resolves.toMatchObject({ strategy: "mitogen_linear" });
    expect(h.calls()).toHaveLength(before);
  });

  it("fails without retry when a round's state read finds the VM shut off", async () => {
    const h = host(Infinity, (read) => (read >= 2 ? "shut off" : "running"));
    const err = await h.run({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect((err as Error).message).toBe("VM 'web1' is shut off; it will not answer SSH");
    expect(h.loops()).toHaveLength(1);
  });

  it("scans a server that sent its banner but no ed25519 key again, waiting 10 s for its keys", async () => {
    const h = host(1, undefined, BANNER);
    await expect(h.run({})).resolves.toMatchObject({ host_keys: [KEY.trim()] });
    expect(h.scanTimeouts()).toEqual(["10"]);
    // Those keys are pinned by a command of their own, into the VM's directory.
    expect(h.calls().at(-1)).toEqual(expect.arrayContaining(["/conf/vms/web1", KEY.trim()]));
  });

  it("pauses half a second between scans unless told otherwise", () => {
    const op = createHostOperators({}).find((o) => o.name === "vm_wait_ssh")!;
    expect(op.args.parse({ name: "web1" })).toMatchObject({ interval_s: 0.5, timeout_s: 300 });
  });
});
