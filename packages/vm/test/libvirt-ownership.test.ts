import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { acquireVmTestLock, createVmScratch, ensureLibvirtd, makeTestIso, type VmScratch } from "@svc/testing";

jest.setTimeout(300_000);

// Which libvirt domains svc may touch: the ones it created (svc metadata in the domain XML).
// A domain defined by someone else is neither adopted by create nor deleted without
// --force-foreign. The svc VM boots a tiny data ISO on an empty disk (nothing to wait for), so
// no test image is needed.
const BIN = resolve(__dirname, "../bin/svc-vm");
const URI = "qemu:///system";
const prefix = `svct-${randomBytes(3).toString("hex")}`;
const foreign = `${prefix}-foreign`;
const ours = `${prefix}-own`;
let release: () => void = () => undefined;
let scratch: VmScratch;
let isoDir = "";
let iso = "";
let env: NodeJS.ProcessEnv;

interface Res {
  code: number;
  stdout: string;
  stderr: string;
}
function svcVm(args: string[]): Promise<Res> {
  return new Promise((done) => {
    execFile(BIN, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === "number" ? (err as unknown as { code: number }).code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}
const virsh = (...args: string[]) => spawnSync("virsh", ["--connect", URI, ...args], { encoding: "utf8" });
const defined = (name: string) => virsh("dominfo", name).status === 0;

beforeAll(async () => {
  release = await acquireVmTestLock();
  await ensureLibvirtd();
  scratch = createVmScratch("own");
  ({ dir: isoDir, iso } = makeTestIso("own-iso"));
  const images = join(isoDir, "images");
  mkdirSync(images);
  env = { ...process.env, SVC_VM_IMAGES_DIR: images, SVC_VM_DISKS_DIR: scratch.disksDir, SVC_VM_DRIVER: "libvirt", SVC_LIBVIRT_URI: URI };
  // A domain made directly with virsh, as another tool or a person would: never started.
  const xml = join(isoDir, "foreign.xml");
  writeFileSync(xml, `<domain type='qemu'><name>${foreign}</name><memory unit='MiB'>32</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>\n`);
  const d = virsh("define", xml);
  if (d.status !== 0) throw new Error(`virsh define failed: ${d.stderr}`);
}, 600_000);

afterAll(() => {
  scratch?.cleanup(prefix);
  if (isoDir) rmSync(isoDir, { recursive: true, force: true });
  release();
});

describe("svc-vm touches only the libvirt domains svc created", () => {
  it("refuses to delete a domain defined outside svc (exit 7, says how to force); the domain stays", async () => {
    const r = await svcVm(["delete", "vm", foreign, "-y", "-o", "json"]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "vm_foreign" }, exit_code: 7 });
    expect(r.stderr).toBe(
      `svc-vm: error: refusing to delete '${foreign}': its libvirt domain was not created by svc (no svc metadata); pass --force-foreign to delete it anyway\n`,
    );
    expect(defined(foreign)).toBe(true);
  });

  it("refuses to adopt such a domain on create, naming it (exit 7)", async () => {
    const r = await svcVm(["create", "vm", foreign, "-P", `iso=${iso}`, "-P", "disks=[1]", "-P", "nets=[user]", "-o", "json"]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(new RegExp(`cannot create VM '${foreign}': a libvirt domain of that name exists and was not created by svc`));
    expect(defined(foreign)).toBe(true);
  });

  it("deletes it with --force-foreign", async () => {
    const r = await svcVm(["delete", "vm", foreign, "-y", "--force-foreign", "-o", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: foreign, deleted: true });
    expect(defined(foreign)).toBe(false);
  });

  it("a VM svc-vm creates carries svc metadata naming the creating task", async () => {
    const owner = ["--owner-dag", "vm_deployment", "--owner-run", "manual__2024-05-01T10:00:00+00:00", "--owner-task", "create_vm"];
    const r = await svcVm(["create", "vm", ours, "-P", `iso=${iso}`, "-P", "disks=[1]", "-P", "memory=256", "-P", "nets=[user]", ...owner, "-o", "json"]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: ours, created: true });
    const meta = virsh("metadata", ours, "https://svc.dev/xmlns/vm/1");
    expect(meta.status).toBe(0);
    expect(meta.stdout).toMatch(/<owner managed_by="svc" dag_id="vm_deployment" run_id="manual__2024-05-01T10:00:00\+00:00" task_id="create_vm"\/>/);
  });

  it("create adopts the VM for the run that made it and refuses another run (exit 4, naming the owner)", async () => {
    const base = [
      "create",
      "vm",
      ours,
      "-P",
      `iso=${iso}`,
      "-P",
      "disks=[1]",
      "-P",
      "memory=256",
      "-P",
      "nets=[user]",
      "--owner-dag",
      "vm_deployment",
      "--owner-task",
      "create_vm",
    ];
    const same = await svcVm([...base, "--owner-run", "manual__2024-05-01T10:00:00+00:00", "-o", "json"]);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ name: ours, created: false });
    const other = await svcVm([...base, "--owner-run", "manual__other", "-o", "json"]);
    expect(other.code).toBe(4);
    expect(JSON.parse(other.stdout)).toMatchObject({ error: { code: "vm_exists" } });
    expect(other.stderr).toMatch(
      new RegExp(`VM '${ours}' already exists and belongs to another run \\(created by run manual__2024-05-01T10:00:00\\+00:00 of DAG vm_deployment, task create_vm\\)`),
    );
    const partial = await svcVm(["create", "vm", ours, "-P", `iso=${iso}`, "--owner-run", "x"]);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toMatch(/give --owner-dag, --owner-run and --owner-task together/);
  });

  it("deletes a VM svc created without any force", async () => {
    const r = await svcVm(["delete", "vm", ours, "-y", "-o", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ name: ours, deleted: true });
    expect(defined(ours)).toBe(false);
  });
});
