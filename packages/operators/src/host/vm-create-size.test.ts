import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import { LocalExecutor } from "@svc/host";
import { createTestOperatorContext } from "@svc/testing";
import { createHostOperators } from "./index";

// A cloud size given for a VM that lands on a libvirt host is refused by name, before the VM CLI
// runs: a libvirt VM is sized by cpus and memory_mb, and a size the user gave is never dropped.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-vmsize-"));
  // A VM CLI that leaves a mark if it is ever run.
  writeFileSync(join(dir, "svc-vm"), `#!/bin/sh\ntouch ${join(dir, "ran")}\n`, { mode: 0o755 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("vm_create with size on a libvirt host is a non-retryable refusal naming the size and the host; the VM CLI never runs", async () => {
  const cfg = loadConfig({ SVC_SSH_HOST: "local", SVC_VM_CLI: join(dir, "svc-vm"), SVC_HOST_STATE_DIR: join(dir, "tries") });
  const op = createHostOperators({ executor: () => new LocalExecutor({ env: process.env }) }).find((o) => o.name === "vm_create")!;
  const ctx = createTestOperatorContext(cfg, "create_vm");
  const err = (await op.run(op.args.parse({ name: "s1", image: "debian12", size: "cx23" }), ctx).catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(NonRetryableError);
  expect(err.message).toBe(
    "size 'cx23' names a cloud size, but the configured host is a libvirt host: its VMs are sized by cpus and memory_mb (drop size, or put the VM on a cloud host)",
  );
  expect(existsSync(join(dir, "ran"))).toBe(false);
  expect(op.args.safeParse({ name: "s1", image: "debian12", size: "t3.micro; rm -rf /" }).success).toBe(false);
});
