import type { Client } from "@modelcontextprotocol/client";
import type { HostCapacity } from "@svc/hosts";
import { connectStdio, startStack, vmDeploymentDag, VM_CLI, type Stack, type ToolResult } from "./helpers";

const VM_DEPLOYMENT = vmDeploymentDag({ image: "debian12", memory_mb: 2048, disk_gb: 10 });

/** A probe as a worker would have recorded it (hand-written: the probe itself is tested in @svc/hosts). */
function probe(o: Partial<HostCapacity>): HostCapacity {
  return {
    memory_total_mb: 65536,
    memory_free_mb: 60000,
    memory_committed_mb: 4096,
    vcpus_total: 16,
    vcpus_used: 2,
    disk_total_gb: 1000,
    disk_free_gb: 800,
    disk_path: "/var/lib/libvirt/images",
    images: ["debian12"],
    vms: [],
    vm_count: 0,
    probed_at: new Date().toISOString(),
    ...o,
  };
}

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack("mcphosts", { "vm_deployment.yaml": VM_DEPLOYMENT });
  const row = (name: string, p: HostCapacity | null, error: string | null = null) => ({
    name,
    ssh_user: "root",
    address: name === "local" ? "127.0.0.1" : `${name}.lab.example`,
    key_path: "/nonexistent/id_ed25519",
    host_key: null,
    last_probe: p ? JSON.stringify(p) : null,
    probed_at: new Date().toISOString(),
    probe_error: error,
    created_by: "test",
  });
  // local: small and without the image; lab2: room and the image, holding web-on-lab2; lab3: its probe failed.
  const lab2Vms = [{ name: "web-on-lab2", running: true, svc: true, memory_mb: 2048, cpus: 2 }];
  await stack.tdb.db
    .insertInto("hypervisor_host")
    .values([
      row("local", probe({ memory_total_mb: 4096, memory_free_mb: 1024, memory_committed_mb: 0, images: ["alpine"] })),
      row("lab2", probe({ vms: lab2Vms, vm_count: 1 })),
      row("lab3", null, "ssh: connect to host lab3.lab.example port 22: No route to host"),
    ])
    .execute();
  client = await connectStdio({ ...stack.env, SVC_SSH_HOST: "local", SVC_VM_CLI: VM_CLI });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;

test("list_vms shows each VM with its host: local live, lab2 from its last probe, lab3 listed with its probe's error", async () => {
  const r = await call("list_vms", { limit: 200 });
  expect(r.isError).toBeFalsy();
  const data = r.structuredContent as { vms: { name: string; host: string }[]; hosts: { name: string; source: string; error: string | null }[] };
  expect(data.vms).toContainEqual({ name: "web-on-lab2", state: "running", image: null, cpus: 2, memory_mb: 2048, ip: null, host: "lab2" });
  for (const v of data.vms.filter((x) => x.name !== "web-on-lab2")) expect(v.host).toBe("local");
  expect(data.hosts.map((h) => [h.name, h.source, h.error])).toEqual([
    ["lab2", "probe", null],
    ["lab3", "probe", "ssh: connect to host lab3.lab.example port 22: No route to host"],
    ["local", "live", null],
  ]);
  expect(r.content[0]?.text).toMatch(/web-on-lab2: running on lab2/);
  expect(r.content[0]?.text).toMatch(/host lab3: probe failed: ssh: connect to host lab3/);
});

test("get_vm_info finds the VM on whichever host holds it and says which; a VM on no host is an error naming the hosts searched", async () => {
  const r = await call("get_vm_info", { vm_name: "web-on-lab2" });
  expect(r.isError).toBeFalsy();
  expect(r.structuredContent).toMatchObject({ name: "web-on-lab2", host: "lab2", source: "probe", state: "running", also_on: [] });
  expect(r.content[0]?.text).toMatch(/^web-on-lab2: running on host lab2 \(last probe /);
  const missing = await call("get_vm_info", { vm_name: "mcp-nowhere" });
  expect(missing.isError).toBe(true);
  expect(missing.content[0]?.text).toMatch(/^vm_name: no VM named 'mcp-nowhere' on any host; searched local \(live\), lab2 \(probe of .*\), lab3 \(probe failed: ssh: connect/);
});

test("preflight_vm_creation gives each host's verdict and the host placement would choose", async () => {
  const r = await call("preflight_vm_creation", { vm_name: "mcp-new-1", memory_mb: 2048, cpus: 2, disk_gb: 10 });
  expect(r.isError).toBeFalsy();
  const data = r.structuredContent as { would_succeed: boolean; host: string | null; hosts: { host: string; fits: boolean; reasons: string[] }[] };
  expect(data).toMatchObject({ would_succeed: true, host: "lab2", conf: { vm_name: "mcp-new-1", image: "debian12" } });
  const verdicts = Object.fromEntries(data.hosts.map((h) => [h.host, h]));
  expect(verdicts.lab2).toMatchObject({ fits: true, reasons: [] });
  expect(verdicts.lab3).toMatchObject({ fits: false, reasons: ["down: ssh: connect to host lab3.lab.example port 22: No route to host"] });
  expect(verdicts.local?.fits).toBe(false);
  expect(verdicts.local?.reasons).toEqual(expect.arrayContaining(["no image 'debian12'", "memory: 2048 MiB asked, 512 MiB free after a 512 MiB reserve"]));
  expect(r.content[0]?.text).toBe("all checks pass on host lab2");
});

test("preflight_vm_creation pinned to a host that cannot take the VM would fail, saying why; a taken name is named with its host", async () => {
  const pinned = await call("preflight_vm_creation", { vm_name: "web-on-lab2", host: "local" });
  expect(pinned.structuredContent).toMatchObject({ would_succeed: false, host: null, conf: { host: "local" } });
  const text = pinned.content[0]?.text ?? "";
  expect(text).toMatch(/name_free: a VM named 'web-on-lab2' already exists on host 'lab2'/);
  expect(text).toMatch(/placement: no host fits: .*local: no image 'debian12'/);
  expect(text).toMatch(/lab2: not the pinned host 'local'/);
});

test("a host not in the inventory is a tool error listing the hosts; a malformed one is refused by the schema", async () => {
  for (const tool of ["preflight_vm_creation", "create_vm"]) {
    const r = await call(tool, { vm_name: "mcp-new-2", host: "lab9" });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toBe("host: host 'lab9' is not in the inventory; the hosts are: lab2, lab3, local");
    const bad = await call(tool, { vm_name: "mcp-new-2", host: "B_2" });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/host/);
  }
});

test("create_vm passes the host as the VM workflow's host param", async () => {
  const r = await call("create_vm", { vm_name: "mcp-on-lab2", host: "lab2", wait_seconds: 60 });
  expect(r.structuredContent).toMatchObject({ waited: true, run: { state: "success", conf: { action: "create", vm_name: "mcp-on-lab2", host: "lab2" } } });
  expect(r.content[0]?.text).toMatch(/^create mcp-on-lab2 on host lab2: run /);
});
