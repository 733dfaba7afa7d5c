import { loadConfig } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor, RunResult } from "@svc/host";
import { createTestOperatorContext } from "@svc/testing";
import { createHostOperators } from "./index";

// vm_wait_ssh's probing, through our own HostExecutor interface recording what it was asked to run
// and answering as the VM CLI and ssh-keyscan would (the real ones are in vm-e2e.test.ts).
const KEY = "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey\n";
const info = (state: string) => JSON.stringify({ name: "web1", state, image: "alpha", memory_mb: 512, cpus: 1, ip: null, ssh_host: "127.0.0.1", ssh_port: 2222, ssh_user: "root" });
const cfg = loadConfig({ SVC_SSH_HOST: "127.0.0.1", SVC_VM_DISKS_DIR: "/conf/vms" });

/** A host whose sshd in the VM answers from the `answerAt`-th scan on; the VM's state per info read. */
function host(answerAt: number, stateAt: (read: number) => string = () => "running") {
  const calls: string[][] = [];
  let scans = 0;
  let reads = 0;
  const reply = (argv: readonly string[]): Partial<RunResult> => {
    if (argv[0] === "svc-vm") return { stdout: info(stateAt(++reads)) };
    if (argv[0] === "ssh-keyscan") return { stdout: ++scans >= answerAt ? KEY : "" };
    return {};
  };
  const ex: HostExecutor = {
    target: "root@127.0.0.1:22",
    run: async (argv) => (calls.push([...argv]), { code: 0, stdout: "", stderr: "", ...reply(argv) }),
    close: async () => undefined,
  };
  const op = createHostOperators({ executor: () => ex, env: { SVC_VM_CLI: "svc-vm", SVC_VM_DISKS_DIR: "/conf/vms" } }).find((o) => o.name === "vm_wait_ssh")!;
  const run = (args: Record<string, unknown>) => op.run(op.args.parse({ name: "web1", interval_s: 0.2, ...args }), createTestOperatorContext(cfg, "vm_wait_ssh"));
  const count = (cmd: string) => calls.filter((a) => a[0] === cmd).length;
  const scanTimeouts = () => calls.filter((a) => a[0] === "ssh-keyscan").map((a) => a[a.indexOf("-T") + 1]);
  return { run, count, scanTimeouts };
}

describe("vm_wait_ssh probing", () => {
  it("reads the VM once, then only scans its endpoint, reading the state again every 10th probe", async () => {
    const h = host(12);
    await expect(h.run({})).resolves.toMatchObject({ ssh_host: "127.0.0.1", ssh_port: 2222, host_keys: [expect.stringContaining("ssh-ed25519")] });
    expect(h.count("ssh-keyscan")).toBe(12);
    expect(h.count("svc-vm")).toBe(2);
  });

  it("fails without retry when a state read finds the VM shut off", async () => {
    const h = host(Infinity, (read) => (read >= 2 ? "shut off" : "running"));
    const err = await h.run({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect((err as Error).message).toBe("VM 'web1' is shut off; it will not answer SSH");
    expect(h.count("ssh-keyscan")).toBe(9);
  });

  it("waits 3 s for each scan's answer, and 10 s on every 4th, for a guest too loaded to answer sooner", async () => {
    const h = host(9);
    await h.run({});
    expect(h.scanTimeouts()).toEqual(["3", "3", "3", "10", "3", "3", "3", "10", "3"]);
  });

  it("polls every second unless told otherwise", () => {
    const op = createHostOperators({}).find((o) => o.name === "vm_wait_ssh")!;
    expect(op.args.parse({ name: "web1" })).toMatchObject({ interval_s: 1, timeout_s: 300 });
  });
});
