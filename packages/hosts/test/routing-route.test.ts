import { NonRetryableError } from "@svc/errors";
import { loadConfig } from "@svc/config";
import { type HostCapacity } from "../src";
import { createHostRouting } from "../src/routing/create-host-routing";
import { type HostRouting } from "../src/routing/types";
import { recordingLogger, twoHosts, type TwoHosts } from "./routing-fixture";

// route() against a real Postgres and two real hosts (this machine's libvirt through two private
// sshds, probed by the routing's own monitor), then against probes written by hand where a VM's
// whereabouts are the point (both hosts share one libvirt, so a real domain would be on both).
let h: TwoHosts;
let routing: HostRouting | undefined;
const vm = (name: string, extra: Record<string, unknown> = {}) => ({
  dagId: "d",
  runId: "r",
  taskId: "create",
  operator: "vm_create",
  args: { name, image: "alpha", memory_mb: 256, cpus: 1, disks_gb: [1], ...extra },
});
const op = (operator: string, args: Record<string, unknown>) => ({ dagId: "d", runId: "r", taskId: "t", operator, args });
const setHost = (name: string, set: Record<string, unknown>) => h.tdb.db.updateTable("hypervisor_host").set(set).where("name", "=", name).execute();

beforeAll(async () => {
  h = await twoHosts("hostroute");
}, 60_000);
afterAll(async () => {
  await routing?.close();
  await h?.close();
});

test("a single-host install routes every host-scoped try to local, with no lines, whatever it asks", async () => {
  routing = createHostRouting({ db: h.tdb.db, logger: recordingLogger(), hosts: "all" });
  await routing.ready();
  await expect(routing.route(vm("huge", { memory_mb: 1_000_000 }))).resolves.toEqual({ host: "local", lines: [] });
  await expect(routing.route(op("ssh", { argv: ["true"], host: "local" }))).resolves.toEqual({ host: "local", lines: [] });
  // It is not probed (it has no pinned key here) and the worker serves it, as before hosts existed.
  expect(routing.status().local).toMatchObject({ up: true, reason: "single-host install: not probed" });
  expect((await h.tdb.db.selectFrom("hypervisor_host").select("probed_at").where("name", "=", "local").executeTakeFirstOrThrow()).probed_at).toBeNull();
  expect(routing.serves("local")).toBe(true);
  expect(routing.operatorHost("local")).toBeUndefined();
  await routing.close();
});

describe("with hosts a and b probed for real", () => {
  beforeAll(async () => {
    await h.addHosts();
    routing = createHostRouting({ db: h.tdb.db, logger: recordingLogger(), hosts: ["a", "b"] });
    await routing.ready();
  }, 60_000);

  test("the first probe round runs at start and records each host's probe in hypervisor_host", async () => {
    expect(routing!.status()).toMatchObject({ a: { up: true }, b: { up: true } });
    const rows = await h.tdb.db.selectFrom("hypervisor_host").select(["name", "probed_at", "probe_error", "last_probe"]).where("name", "in", ["a", "b"]).execute();
    for (const r of rows) expect(r).toMatchObject({ probe_error: null, probed_at: expect.any(Date), last_probe: expect.objectContaining({ images: ["alpha"] }) });
  });

  test("a host arg pins the try to that host; a host not in the inventory is refused, naming the known hosts", async () => {
    await expect(routing!.route(op("ssh", { argv: ["true"], host: "b" }))).resolves.toEqual({ host: "b", lines: ["host 'b' pinned by the task's host arg"] });
    await expect(routing!.route(vm("pinned", { host: "b" }))).resolves.toMatchObject({ host: "b" });
    const err = await routing!.route(op("vm_info", { name: "x", host: "nowhere" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect((err as Error).message).toBe("host 'nowhere' is not in the inventory (known hosts: a, b, local)");
  });

  test("placement by capacity: a host whose memory reserve is above its total gets nothing, and its reason is in the error when it is the only candidate", async () => {
    await setHost("a", { reserve_memory_mb: 10_000_000 });
    const d = await routing!.route(vm("placed"));
    expect(d.host).toBe("b");
    expect(d.lines[0]).toBe("VM 'placed' asks 256 MiB, 1 vCPUs, disks [1] GB, image 'alpha'");
    expect(d.lines).toContain("placed on 'b' (spread)");
    expect(d.lines.find((l) => l.startsWith("  a: "))).toMatch(
      /^ {2}a: memory: 256 MiB asked, -\d+ MiB free after a 10000000 MiB reserve \(memory -\d+ MiB, disk -?\d+ GB, vcpus -?\d+ free\)$/,
    );
    expect(d.lines.find((l) => l.startsWith("  b: "))).toMatch(/^ {2}b: fits \(memory \d+ MiB, disk \d+ GB, vcpus \d+ free, weight /);
    // `local` was never probed (a single-host install is not; this worker does not serve it): down.
    expect(d.lines).toContain("  local: down: not probed yet (no numbers)");
    await setHost("b", { state: "draining" });
    const err = await routing!.route(vm("placed")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect((err as Error).message).toMatch(/^no host fits VM placed: a: memory: 256 MiB asked, -\d+ MiB free after a 10000000 MiB reserve; b: draining; local: down: /);
    await setHost("a", { reserve_memory_mb: 512 });
    await setHost("b", { state: "active" });
  });

  test("a drained host gets no vm_create (placed or pinned), while other operators may still be pinned to it", async () => {
    // Both hosts are this machine: a larger reserve on b makes a the emptier one, chosen unless drained.
    await setHost("b", { reserve_memory_mb: 4096 });
    await expect(routing!.route(vm("tie"))).resolves.toMatchObject({ host: "a" });
    await setHost("a", { state: "draining" });
    const d = await routing!.route(vm("tie"));
    expect(d.host).toBe("b");
    expect(d.lines).toContain("placed on 'b' (spread)");
    expect(d.lines.find((l) => l.startsWith("  a: "))).toMatch(/^ {2}a: draining \(memory /);
    await expect(routing!.route(vm("tie", { host: "a" }))).rejects.toThrow("host 'a' is draining: it takes no new VMs (svc-hosts activate a)");
    await expect(routing!.route(op("vm_delete", { name: "tie", host: "a" }))).resolves.toMatchObject({ host: "a" });
    await setHost("a", { state: "active" });
    await setHost("b", { reserve_memory_mb: 512 });
  });

  test("SVC_PLACEMENT_WEIGHER: spread by default, pack when asked, anything else refused when the configuration is loaded", () => {
    expect(loadConfig({}).placement.weigher).toBe("spread");
    expect(loadConfig({ SVC_PLACEMENT_WEIGHER: "pack" }).placement.weigher).toBe("pack");
    expect(() => loadConfig({ SVC_PLACEMENT_WEIGHER: "random" })).toThrow("SVC_PLACEMENT_WEIGHER: must be one of spread, pack");
  });

  afterAll(async () => {
    await routing?.close();
    routing = undefined;
  });
});

describe("the host holding a VM, from the hosts' last probes (written by hand: both hosts share one libvirt)", () => {
  const probe = (vms: string[], freeMb: number): HostCapacity => ({
    memory_total_mb: 16384,
    memory_free_mb: freeMb,
    memory_committed_mb: 256 * vms.length,
    vcpus_total: 8,
    vcpus_used: vms.length,
    disk_total_gb: 100,
    disk_free_gb: 90,
    disk_path: "/",
    images: ["alpha"],
    vms: vms.map((name) => ({ name, running: true, svc: true, memory_mb: 256, cpus: 1 })),
    vm_count: vms.length,
    probed_at: new Date().toISOString(),
  });
  beforeAll(async () => {
    // Serving no host: nothing probes, so the hand-written probes stay.
    routing = createHostRouting({ db: h.tdb.db, logger: recordingLogger(), hosts: [] });
    await routing.ready();
    await h.inv.saveProbe("a", { capacity: probe(["held"], 12000) });
    await h.inv.saveProbe("b", { capacity: probe([], 16000) });
  });

  test("vm_create of a name a host holds goes to that host (idempotent create); pinning another host is refused", async () => {
    const d = await routing!.route(vm("held"));
    expect(d).toEqual({ host: "a", lines: [expect.stringMatching(/^VM 'held' is on host 'a' \(in its probe of .+\): creating it there again is idempotent$/)] });
    await expect(routing!.route(vm("held", { host: "b" }))).rejects.toThrow(
      /^VM 'held' already exists on host 'a' \(in its probe of .+\), the task pins host 'b': a VM name is unique across the hosts/,
    );
  });

  test("a host_check with place (a DAG's placement step) is routed as that VM's vm_create: placed, kept where the name is held, a draining pin refused; without place it goes to local", async () => {
    const check = (name: string, extra: Record<string, unknown> = {}) =>
      op("host_check", { fail_on_error: true, place: { name, memory_mb: 256, cpus: 1, disks_gb: [1] }, ...extra });
    for (const name of ["a", "b"]) await setHost(name, { state: "active", reserve_memory_mb: 512 });
    // b holds no VM (a holds one) and has the more free memory: spread places a new VM there.
    const d = await routing!.route(check("lab-router"));
    expect(d.host).toBe("b");
    expect(d.lines[0]).toBe("VM 'lab-router' asks 256 MiB, 1 vCPUs, disks [1] GB");
    expect(d.lines).toContain("placed on 'b' (spread)");
    await expect(routing!.route(check("held"))).resolves.toMatchObject({ host: "a" });
    await expect(routing!.route(check("held", { host: "b" }))).rejects.toThrow(/^VM 'held' already exists on host 'a' .*, the task pins host 'b'/);
    await setHost("b", { state: "draining" });
    try {
      await expect(routing!.route(check("lab-router"))).resolves.toMatchObject({ host: "a" });
      await expect(routing!.route(check("lab-router", { host: "b" }))).rejects.toThrow("host 'b' is draining: it takes no new VMs (svc-hosts activate b)");
    } finally {
      await setHost("b", { state: "active" });
    }
    await expect(routing!.route(op("host_check", { fail_on_error: true }))).resolves.toEqual({ host: "local", lines: ["host_check names no VM: host 'local'"] });
  });

  test("vm_info, vm_delete, vm_wait_ssh and ansible_playbook go to the host holding the VM they name; a VM on no host goes to local, saying so", async () => {
    for (const [o, args] of [
      ["vm_info", { name: "held" }],
      ["vm_delete", { name: "held" }],
      ["vm_wait_ssh", { name: "held" }],
      ["ansible_playbook", { playbook: "p.yml", vm: "held" }],
      ["ansible_playbook", { playbook: "p.yml", on_host: true, extra_vars: { vm_name: "held" } }],
    ] as const) {
      await expect(routing!.route(op(o, args))).resolves.toMatchObject({ host: "a" });
    }
    await expect(routing!.route(op("vm_delete", { name: "gone" }))).resolves.toEqual({
      host: "local",
      lines: ["VM 'gone' (arg name) is on no host per their last probes: host 'local'"],
    });
    await expect(routing!.route(op("ssh", { argv: ["true"] }))).resolves.toEqual({ host: "local", lines: ["ssh names no VM: host 'local'"] });
  });

  test("a vm_create routed to a host and still in flight counts against its capacity and holds its name until a probe sees it", async () => {
    const db = h.tdb.db;
    const definition = {
      tasks: [{ task_id: "mk", operator: "vm_create", args: { name: "{{ params.vm_name }}", memory_mb: "{{ params.memory_mb }}", cpus: 2, disks_gb: ["{{ params.disk }}"] } }],
    };
    await db
      .insertInto("dag_run")
      .values({
        dag_id: "other",
        run_id: "r1",
        state: "running",
        run_type: "manual",
        conf: JSON.stringify({ vm_name: "flying", memory_mb: 6000, disk: 7 }),
        definition: JSON.stringify(definition),
        dag_hash: "h",
        logical_date: new Date(),
      })
      .execute();
    await db.insertInto("task_instance").values({ dag_id: "other", run_id: "r1", task_id: "mk", operator: "vm_create", state: "running", host: "b" }).execute();
    // Without the flying VM b is the emptier host (no VM, 16000 MiB free; a holds one); with it, a is.
    const d = await routing!.route(vm("next", { memory_mb: 4096 }));
    expect(d.host).toBe("a");
    expect(d.lines.find((l) => l.startsWith("  b: "))).toMatch(/^ {2}b: fits \(memory 9488 MiB, disk 83 GB, vcpus 30 free/);
    expect(d.lines).toContain("  b: 1 VM(s) created there and not in its probe yet counted: 6000 MiB, 2 vCPUs, 7 GB");
    await expect(routing!.route(op("vm_info", { name: "flying" }))).resolves.toEqual({
      host: "b",
      lines: ["VM 'flying' (arg name) is on host 'b' (being created there by other/r1/mk)"],
    });
  });

  test("a vm_create that ended after its host's last probe still counts against that host until a probe lists its VM", async () => {
    const db = h.tdb.db;
    await db
      .updateTable("task_instance")
      .set({ state: "success", end_date: new Date(Date.now() + 1000), output: JSON.stringify({ name: "flying" }) })
      .where("run_id", "=", "r1")
      .execute();
    const d = await routing!.route(vm("next", { memory_mb: 4096 }));
    expect(d.host).toBe("a");
    expect(d.lines).toContain("  b: 1 VM(s) created there and not in its probe yet counted: 6000 MiB, 2 vCPUs, 7 GB");
    // The next probe of b lists it: its memory is then the probe's, and nothing more is added.
    await h.inv.saveProbe("b", { capacity: { ...probe(["flying"], 16000), probed_at: new Date(Date.now() + 2000).toISOString() } });
    const after = await routing!.route(vm("next", { memory_mb: 4096 }));
    expect(after.lines.filter((l) => l.includes("not in its probe yet"))).toEqual([]);
  });
});
