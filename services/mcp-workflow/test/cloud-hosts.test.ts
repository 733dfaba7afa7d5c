import type { Client } from "@modelcontextprotocol/client";
import type { HostCapacity } from "@svc/hosts";
import { sampleCapacity, sampleHostRow } from "@svc/testing";
import { connectStdio, startStack, vmDeploymentDag, VM_CLI, type Stack, type ToolResult } from "./helpers";

// The VM tools show cloud hosts beside the libvirt ones: provider, region, up or down with the
// provider's error; placement takes a cloud host only when asked for it (the pinned host here), and
// a VM there needs the role op (the server's default role is user). Through the official MCP SDK client.
// The tools' stand-in VM workflow with a vm_create step as the shipped one has (the trigger's cloud check reads it; no run here reaches it).
const VM_DEPLOYMENT = `${vmDeploymentDag({ image: "debian12", memory_mb: 2048, disk_gb: 10 })}  - task_id: create_vm
    operator: vm_create
    when: "{{ params.action == 'create' }}"
    args: { name: "{{ params.vm_name }}", image: "{{ params.image }}", cpus: "{{ params.cpus }}", memory_mb: "{{ params.memory_mb }}", disks_gb: ["{{ params.disk_gb }}"], host: "{{ params.host or none }}" }
`;

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack("mcpcloud", { "vm_deployment.yaml": VM_DEPLOYMENT });
  const fresh: HostCapacity = sampleCapacity({ images: ["debian12"], probed_at: new Date(Date.now() + 3600_000).toISOString() });
  const now = new Date().toISOString();
  const cloud = (name: string, provider: "aws" | "hetzner", settings: Record<string, string>, error: string | null) => ({
    ...sampleHostRow(name, `${name}.api.example`, { port: 443 }),
    labels: "{}",
    provider,
    provider_settings: JSON.stringify(settings),
    probed_at: now,
    probe_error: error,
    created_by: "test",
  });
  await stack.tdb.db
    .insertInto("hypervisor_host")
    .values([
      { ...sampleHostRow("lab2", "lab2.lab.example"), labels: "{}", last_probe: JSON.stringify(fresh), probed_at: fresh.probed_at, created_by: "test" },
      cloud("aws-eu", "aws", { region: "eu-west-1", credentials: "secrets-file" }, null),
      cloud("hz-bad", "hetzner", { location: "fsn1" }, "unauthorized: unable to authenticate"),
    ])
    .execute();
  client = await connectStdio({ ...stack.env, SVC_VM_CLI: VM_CLI });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
type Host = { name: string; source: string; provider: string; region: string | null; up: boolean; error: string | null; note?: string };

test("list_vms lists each cloud host with its provider, region and up or down with the provider's error", async () => {
  const r = await call("list_vms", {});
  expect(r.isError).toBeFalsy();
  const hosts = Object.fromEntries((r.structuredContent as { hosts: Host[] }).hosts.map((h) => [h.name, h]));
  expect(hosts["aws-eu"]).toMatchObject({
    source: "provider",
    provider: "aws",
    region: "eu-west-1",
    up: true,
    error: null,
    note: expect.stringMatching(/svc-vm list vm -C aws-eu/),
  });
  expect(hosts["hz-bad"]).toMatchObject({ source: "provider", provider: "hetzner", region: "fsn1", up: false, error: "unauthorized: unable to authenticate" });
  expect(hosts.lab2).toMatchObject({ source: "probe", provider: "libvirt", region: null, up: true });
  expect(r.content[0]?.text).toMatch(/host hz-bad: identity call failed: unauthorized: unable to authenticate/);
  expect(r.content[0]?.text).toMatch(/host aws-eu: aws eu-west-1 up/);
});

test("preflight_vm_creation places on the libvirt host and says why each cloud host was not taken; pinned, the cloud host is", async () => {
  const r = await call("preflight_vm_creation", { vm_name: "mcp-c1", memory_mb: 2048, cpus: 2, disk_gb: 10 });
  const data = r.structuredContent as { host: string; hosts: (Host & { host: string; fits: boolean; reasons: string[] })[] };
  expect(data.host).toBe("lab2");
  const v = Object.fromEntries(data.hosts.map((h) => [h.host, h]));
  expect(v["aws-eu"]).toMatchObject({
    fits: false,
    provider: "aws",
    region: "eu-west-1",
    up: true,
    reasons: [expect.stringMatching(/^a aws host in eu-west-1: chosen only when the request names/)],
  });
  expect(v["hz-bad"]).toMatchObject({ fits: false, provider: "hetzner", up: false });
  const pinned = await call("preflight_vm_creation", { vm_name: "mcp-c1", host: "aws-eu" });
  expect(pinned.structuredContent).toMatchObject({ would_succeed: true, host: "aws-eu" });
  const bad = await call("preflight_vm_creation", { vm_name: "mcp-c1", host: "hz-bad" });
  expect(bad.content[0]?.text).toMatch(/placement: no host fits: .*hz-bad: down: unauthorized: unable to authenticate/);
});

test("create_vm on a cloud host from a server below op is refused, naming the host and the setting; nothing is queued", async () => {
  const r = await call("create_vm", { vm_name: "mcp-c2", host: "aws-eu" });
  expect(r.isError).toBe(true);
  expect(r.content[0]?.text).toMatch(/needs the role 'op' or an op's approval \(SVC_CLOUD_APPROVAL=op\): create_vm creates a VM on the aws host 'aws-eu'/);
  expect(await stack.tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "vm_deployment").execute()).toEqual([]);
});
