import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import { FencedError, LocalExecutor } from "@svc/host";
import { acquireVmTestLock, createTestOperatorContext, createVmScratch, ensureLibvirtd, makeTestIso, type VmScratch } from "@svc/testing";
import type { Operator } from "../types";
import { createHostOperators } from "./index";

jest.setTimeout(300_000);

// vm_create and vm_delete on real libvirt through the VM CLI: the creating task is recorded in the
// domain, a domain svc did not create is refused unless force_foreign, and both run fenced.
const VM_CLI = resolve(__dirname, "../../../vm/bin/svc-vm");
const prefix = `svct-${randomBytes(3).toString("hex")}`;
const foreign = `${prefix}-opf`;
const ours = `${prefix}-opo`;
let release: () => void = () => undefined;
let scratch: VmScratch;
let dir = "";
let iso = "";
let cfg: SvcConfig;
let ops: Map<string, Operator>;

const virsh = (...args: string[]) => spawnSync("virsh", ["--connect", "qemu:///system", ...args], { encoding: "utf8" });
const defined = (name: string) => virsh("dominfo", name).status === 0;
function ctxOf(task: string, over: { runId?: string; tryNumber?: number } = {}) {
  return { ...createTestOperatorContext(cfg, task), ...over };
}
async function run(name: string, args: Record<string, unknown>, ctx = ctxOf(name)) {
  const op = ops.get(name)!;
  return (await op.run(op.args.parse(args), ctx)) as Record<string, unknown>;
}

beforeAll(async () => {
  release = await acquireVmTestLock();
  await ensureLibvirtd();
  scratch = createVmScratch("opown");
  ({ dir, iso } = makeTestIso("opown"));
  mkdirSync(join(dir, "images"));
  cfg = loadConfig({
    SVC_SSH_HOST: "local",
    SVC_VM_IMAGES_DIR: join(dir, "images"),
    SVC_VM_DRIVER: "libvirt",
    SVC_HOST_STATE_DIR: join(dir, "tries"),
    SVC_VM_CLI: VM_CLI,
    SVC_VM_DISKS_DIR: scratch.disksDir,
    SVC_LIBVIRT_URI: "qemu:///system",
  });
  ops = new Map(createHostOperators({ executor: () => new LocalExecutor({ env: process.env }) }).map((o) => [o.name, o]));
  writeFileSync(
    join(dir, "foreign.xml"),
    `<domain type='qemu'><name>${foreign}</name><memory unit='MiB'>32</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>\n`,
  );
  const d = virsh("define", join(dir, "foreign.xml"));
  if (d.status !== 0) throw new Error(`virsh define failed: ${d.stderr}`);
}, 600_000);

afterAll(() => {
  scratch?.cleanup(prefix);
  if (dir) rmSync(dir, { recursive: true, force: true });
  release();
});

describe("vm operators and domains svc did not create", () => {
  it("vm_delete refuses a domain svc did not create, saying how to force it; force_foreign deletes it", async () => {
    const err = await run("vm_delete", { name: foreign }).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toBe(
      `refusing to delete '${foreign}': its libvirt domain was not created by svc (no svc metadata); set force_foreign: true in the task's args to delete it anyway`,
    );
    expect(defined(foreign)).toBe(true);
    expect(await run("vm_delete", { name: foreign, force_foreign: true }, ctxOf("vm_delete", { tryNumber: 2 }))).toMatchObject({ name: foreign, deleted: true });
    expect(defined(foreign)).toBe(false);
    // vm_delete runs behind the fence: the overtaken try 1 does not run again.
    await expect(run("vm_delete", { name: foreign }, ctxOf("vm_delete", { tryNumber: 1 }))).rejects.toBeInstanceOf(FencedError);
  });

  it("vm_create records its run in the domain; a create from another run is refused unless adopt: dag and the same DAG and spec, the same run's retry adopts it", async () => {
    const args = { name: ours, iso, disks_gb: [1], memory_mb: 256, nets: ["user"] };
    expect(await run("vm_create", args)).toMatchObject({ name: ours, created: true });
    const meta = virsh("metadata", ours, "https://svc.dev/xmlns/vm/1").stdout;
    expect(meta).toMatch(/<owner managed_by="svc" dag_id="test_dag" run_id="manual__test" task_id="vm_create"\/>/);
    expect(await run("vm_create", args, ctxOf("vm_create", { tryNumber: 2 }))).toMatchObject({ created: false });
    const other = await run("vm_create", args, ctxOf("vm_create", { runId: "manual__other" })).catch((e) => e);
    expect(other).toBeInstanceOf(NonRetryableError);
    expect(other.message).toMatch(new RegExp(`VM '${ours}' already exists and belongs to another run \\(created by run manual__test of DAG test_dag, task vm_create\\)`));
    // adopt: dag lets a later run of the same DAG (a product's second create) take the VM over...
    expect(await run("vm_create", { ...args, adopt: "dag" }, ctxOf("vm_create", { runId: "manual__again" }))).toMatchObject({ name: ours, created: false, adopted: true });
    // ...but never with another spec, and never for another DAG.
    const respec = await run("vm_create", { ...args, memory_mb: 512, adopt: "dag" }, ctxOf("vm_create", { runId: "manual__again" })).catch((e) => e);
    expect(respec).toBeInstanceOf(NonRetryableError);
    expect(respec.message).toMatch(/memory_mb: has 256, asked 512/);
    const otherDag = await run("vm_create", { ...args, adopt: "dag" }, { ...ctxOf("vm_create", { runId: "manual__x" }), dagId: "other_dag" }).catch((e) => e);
    expect(otherDag).toBeInstanceOf(NonRetryableError);
    expect(otherDag.message).toMatch(/belongs to another run/);
    expect(await run("vm_delete", { name: ours }, ctxOf("vm_delete", { runId: "manual__cleanup" }))).toEqual({ name: ours, deleted: true, host: "local" });
  });
});
