import type { Client } from "@modelcontextprotocol/client";
import { connectStdio, startStack, vmDeploymentDag, VM_CLI, type Stack, type ToolResult } from "./helpers";

type Check = { check: string; ok: boolean; detail: string };

const VM_DEPLOYMENT = vmDeploymentDag({ image: "no-such-image", memory_mb: 512, disk_gb: 1 });

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack("mcpvm", { "vm_deployment.yaml": VM_DEPLOYMENT });
  // The host is this machine (argv commands run locally), reached as the workers reach theirs.
  client = await connectStdio({ ...stack.env, SVC_SSH_HOST: "local", SVC_VM_CLI: VM_CLI });
});
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
const checksOf = (r: ToolResult) => Object.fromEntries((r.structuredContent as { checks: Check[] }).checks.map((c) => [c.check, c]));

test("preflight_vm_creation of a path-like name would fail on params naming vm_name, while the host and hypervisor checks pass", async () => {
  const r = await call("preflight_vm_creation", { vm_name: "../../etc/passwd" });
  expect(r.isError).toBeFalsy();
  expect(r.structuredContent).toMatchObject({ would_succeed: false });
  const checks = checksOf(r);
  expect(checks.params).toMatchObject({ ok: false, detail: expect.stringMatching(/conf\.vm_name/) });
  expect(checks.host_reachable?.ok).toBe(true);
  expect(checks.hypervisor?.ok).toBe(true);
  expect(r.content[0]?.text).toMatch(/would fail: params/);
});

test("preflight_vm_creation with a missing image names the image; the name is free; memory and disk are measured", async () => {
  const r = await call("preflight_vm_creation", { vm_name: "mcp-preflight-free", image: "no-such-image" });
  const checks = checksOf(r);
  expect(checks.params?.ok).toBe(true);
  expect(checks.image).toMatchObject({ ok: false, detail: expect.stringMatching(/'no-such-image' not found/) });
  expect(checks.name_free).toMatchObject({ ok: true });
  expect(checks.memory?.detail).toMatch(/512 MiB requested, \d+ MiB available/);
  expect(checks.disk?.detail).toMatch(/GiB free/);
  expect(r.structuredContent).toMatchObject({ would_succeed: false, host: "local", conf: { action: "create", vm_name: "mcp-preflight-free", cpus: 2 } });
  expect(r.structuredContent).not.toHaveProperty("hosts");
});

test("list_vms answers the host's VMs, each on host local; get_vm_info of an unknown VM is a tool error naming vm_name", async () => {
  const r = await call("list_vms", { limit: 200 });
  expect(r.isError).toBeFalsy();
  const data = r.structuredContent as { vms: { name: string; state: string; host: string }[]; total: number; hosts: unknown[] };
  expect(data.vms.length).toBe(Math.min(data.total, 200));
  for (const v of data.vms) expect(v.host).toBe("local");
  expect(data.hosts).toEqual([{ name: "local", state: "active", source: "live", probed_at: null, error: null, provider: "libvirt", region: null, up: true }]);
  const missing = await call("get_vm_info", { vm_name: "mcp-no-such-vm" });
  expect(missing.isError).toBe(true);
  expect(missing.content[0]?.text).toMatch(/vm_name: .*mcp-no-such-vm/);
});

test("create_vm and delete_vm run the VM workflow with a validated conf; a repeated delete with the same key is the same run", async () => {
  const created = await call("create_vm", { vm_name: "mcp-web-1", cpus: 1, wait_seconds: 60 });
  expect(created.structuredContent).toMatchObject({ waited: true, run: { dag_id: "vm_deployment", state: "success", conf: { action: "create", vm_name: "mcp-web-1", cpus: 1 } } });
  // No host given: the DAG's default (empty: placement chooses).
  expect((created.structuredContent as { run: { conf: Record<string, unknown> } }).run.conf.host).toBe("");
  const onLocal = await call("create_vm", { vm_name: "mcp-web-2", host: "local" });
  expect(onLocal.structuredContent).toMatchObject({ run: { conf: { action: "create", vm_name: "mcp-web-2", host: "local" } } });
  const elsewhere = await call("create_vm", { vm_name: "mcp-web-3", host: "lab2" });
  expect(elsewhere.isError).toBe(true);
  expect(elsewhere.content[0]?.text).toBe("host: host 'lab2' is not in the inventory; the hosts are: local");
  const bad = await call("create_vm", { vm_name: "../../etc/passwd" });
  expect(bad.isError).toBe(true);
  expect(bad.content[0]?.text).toMatch(/vm_name/);
  const first = await call("delete_vm", { vm_name: "mcp-web-1", idempotency_key: "del-1" });
  const again = await call("delete_vm", { vm_name: "mcp-web-1", idempotency_key: "del-1" });
  expect(again.structuredContent).toMatchObject({
    deduplicated: true,
    run: { run_id: (first.structuredContent as { run: { run_id: string } }).run.run_id, conf: { action: "delete" } },
  });
  const runs = await stack.tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "vm_deployment").execute();
  expect(runs).toHaveLength(3);
});
