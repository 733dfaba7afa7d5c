import request from "supertest";
import { createCachedHostList, createHostInventory, type HostCapacity, type HostInventory } from "@svc/hosts";
import { silentLogger } from "@svc/logger";
import { sampleCapacity, sampleHostRow } from "@svc/testing";
import { createChatService } from "../src/chat";
import { FlowSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";
import { vmCreateDag } from "./vm-dag";

// A VM workflow shaped like dags/vm_deployment.yaml: vm_create with memory, vCPUs, disk, image and host params.
const VM_DAG = vmCreateDag({ image: "alpha", memoryMb: 1024, cpus: 1 });

// The health check shaped like dags/infrastructure_health_check.yaml: which checks to run, and the certificates' warning window.
const HEALTH_DAG = `dag_id: infrastructure_health_check
description: Run an infrastructure health check of the host, VMs, networks, DNS and certificates.
tags: [health, monitoring, certificates]
params:
  checks: {type: array, items: {type: string, enum: [host, hypervisor, vms, networks, dns, certificates, products]}, uniqueItems: true, minItems: 1, default: [host, hypervisor, vms, networks, dns, certificates, products], description: Which checks to run}
  cert_warn_days: {type: integer, minimum: 1, maximum: 365, default: 30, description: Report certificates that end within this many days}
examples:
  - run a health check
  - are any certificates about to expire?
tasks:
  - {task_id: report, operator: noop}
`;

let s: Stack;
let inv: HostInventory;

beforeAll(async () => {
  s = await createStack("aihosts", { extraDags: { "vm-deployment.yaml": VM_DAG, "health-check.yaml": HEALTH_DAG } });
  inv = createHostInventory(s.tdb.db);
});
afterAll(async () => s?.close());

const agoIso = (sec: number) => new Date(Date.now() - sec * 1000).toISOString();
const cap = (o: Partial<HostCapacity> = {}): HostCapacity => sampleCapacity({ probed_at: agoIso(2), ...o });
const addHost = (name: string, address: string) => inv.insert(sampleHostRow(name, address, { reserve_memory_mb: 1024, reserve_disk_gb: 10, cpu_ratio: 2 }), "test");

/** The inventory changed: new service instances, so the orchestrator's and chat's 5 s caches start empty. */
function restartServices() {
  return s.stopServices().then(() => s.startServices());
}

const intent = async (body: object) => {
  const res = await request(s.app).post("/orchestrator/intent").send(body);
  expect(res.status).toBe(200);
  return FlowSchema.parse(res.body);
};

test("single-host install: the plan of a VM shows no placement and the chat says only local is known", async () => {
  await addHost("local", "127.0.0.1");
  const flow = await intent({ intent: "create a vm called web02", auto_execute: false });
  expect(flow).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", placement: null });
  expect(flow.warnings.join(" ")).not.toMatch(/host/);
  const chat = await request(s.app).post("/chat").send({ message: "how much room is left on each host?" });
  expect(chat.body).toMatchObject({ mode: "inventory" });
  expect(chat.body.answer).toMatch(/Only the local host is in the inventory/);
});

describe("two hosts recorded with their probes", () => {
  beforeAll(async () => {
    await addHost("a", "10.0.0.11");
    await addHost("b", "10.0.0.12");
    // a: two VMs holding 8000 MiB (b: one, the sample's 2048), and less free memory.
    await inv.saveProbe("a", { capacity: cap({ memory_free_mb: 5000, memory_committed_mb: 8000, vm_count: 2 }) });
    await inv.saveProbe("b", { capacity: cap({ vm_count: 1 }) });
    // `local` keeps no probe: it is down ("not probed yet").
    await restartServices();
  });

  test("chat answers the room question from the inventory: each host's numbers from its probe, and the one with the most free memory", async () => {
    const res = await request(s.app).post("/chat").send({ message: "how much room is left on each host?" });
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe("inventory");
    expect(res.body.sources.map((x: { path: string }) => x.path)).toEqual(["hosts/a", "hosts/b", "hosts/local"]);
    expect(res.body.hosts[0]).toMatchObject({
      host: "a",
      up: true,
      memory_free_mb: 3976,
      memory_total_mb: 16384,
      vcpus_free: 14,
      vcpus_total: 16,
      disk_free_gb: 190,
      disk_total_gb: 500,
      vm_count: 2,
    });
    expect(res.body.answer).toMatch(/- b \(active\): up \(probed \d+ s ago\); memory 10976 of 16384 MiB free, vCPUs 14 of 16 free, disk 190 of 500 GB free, 1 VM\(s\)/);
    expect(res.body.answer).toMatch(/- local \(active\): DOWN: not probed yet/);
    expect(res.body.answer).toMatch(/Most free memory: b \(10976 MiB\)/);
  });

  test("with a model configured the chat still answers the room question from the inventory, without calling the model", async () => {
    // The model's URL answers nothing: any call to it would fail or time out.
    const model = { ...s.config.model, apiKey: "sk-test-not-used", baseUrl: "http://127.0.0.1:9/v1", timeoutMs: 500 };
    const chat = createChatService({ docsDir: s.config.docsDir, engine: s.assistant.engine, model, logger: silentLogger(), hosts: createCachedHostList(s.tdb.db) });
    const r = await chat.answer("capacity of the hosts");
    expect(r.mode).toBe("inventory");
    expect(r.answer).toMatch(/- a \(active\): up \(probed \d+ s ago\); memory 3976 of 16384 MiB free/);
  });

  test("the intent endpoint answers a host question from the inventory and starts no workflow", async () => {
    const flow = await intent({ intent: "which host has the most free memory?" });
    expect(flow).toMatchObject({ status: "rejected", dag_id: null, run_id: null, placement: null });
    expect(flow.summary).toMatch(/nothing was started/);
    expect(flow.summary).toMatch(/Most free memory: b \(10976 MiB\)/);
  });

  test("a workflow request naming a host is not taken as a question: it is a vm_deployment plan", async () => {
    const flow = await intent({ intent: "create a vm called web05 on host b with 4 GB", auto_execute: false });
    expect(flow).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment" });
    expect(flow.params).toMatchObject({ vm_name: "web05", memory_mb: 4096, host: "b" });
    expect((flow.placement as { vms: { host: string; pinned: string }[] }).vms[0]).toMatchObject({ host: "b", pinned: "b" });
  });

  test("the plan of 'create a vm called web03 with 2 GB' shows the host placement would choose and each host's verdict", async () => {
    const flow = await intent({ intent: "create a vm called web03 with 2 GB", auto_execute: false });
    expect(flow).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { memory_mb: 2048 } });
    const p = flow.placement as {
      blocked: boolean;
      summary: string;
      vms: { vm_name: string; host: string; memory_mb: number; verdicts: { host: string; fits: boolean; reasons: string[] }[] }[];
    };
    expect(p.blocked).toBe(false);
    expect(p.vms[0]).toMatchObject({ vm_name: "web03", host: "b", memory_mb: 2048 });
    expect(p.vms[0]!.verdicts.map((v) => [v.host, v.fits])).toEqual([
      ["a", true],
      ["b", true],
      ["local", false],
    ]);
    expect(p.summary).toMatch(/VM 'web03' would be placed on host 'b' \(spread, from the last probes\): a: fits \(memory 3976 MiB/);
    // The approval view (GET the flow) shows the same plan.
    const again = FlowSchema.parse((await request(s.app).get(`/orchestrator/flows/${flow.flow_id}`)).body);
    expect(again.placement).toEqual(flow.placement);
  });

  test("a host param pins the VM: the plan names the pinned host", async () => {
    const flow = await intent({ intent: "create a vm called web06 with 2 GB of memory", params: { host: "a" }, auto_execute: false });
    const p = flow.placement as { summary: string; vms: { host: string; pinned: string }[] };
    expect(p.vms[0]).toMatchObject({ host: "a", pinned: "a" });
    expect(p.summary).toMatch(/goes to host 'a', pinned by the host param; it fits by its last probe/);
  });

  test("no host fits: the plan says why per host and that the run would fail before creating anything", async () => {
    const flow = await intent({ intent: "create a vm called web07", params: { memory_mb: 65536 }, auto_execute: false });
    const p = flow.placement as { blocked: boolean; vms: { host: string | null }[] };
    expect(p.blocked).toBe(true);
    expect(p.vms[0]!.host).toBeNull();
    expect(flow.warnings.join(" ")).toMatch(/No host fits VM 'web07' now: a: memory: 65536 MiB asked, 3976 MiB free.*The run would fail at create_vm before creating anything/);
  });

  test("the intent endpoint answers where a VM of a stated size would fit, host by host, by placement over the last probes, and starts nothing", async () => {
    const flow = await intent({ intent: "would a vm with 8 GB of ram and 4 vcpus fit anywhere?" });
    expect(flow).toMatchObject({ status: "rejected", dag_id: null, run_id: null });
    expect(flow.summary).toMatch(/nothing was started/);
    expect(flow.summary).toMatch(/A VM with 8192 MiB of memory, 4 vCPU\(s\), disk not stated \(not counted\)/);
    expect(flow.summary).toMatch(/- a: does not fit: memory: 8192 MiB asked, 3976 MiB free after a 1024 MiB reserve/);
    expect(flow.summary).toMatch(/- b: fits \(memory 10976 MiB, vCPUs 14, disk 190 GB free\)/);
    expect(flow.summary).toMatch(/- local: does not fit: down/);
    expect(flow.summary).toMatch(/Placement \(spread\) would put it on b now\./);
  });

  test("a size no host has room for gets 'no host fits', with each host's reason", async () => {
    const flow = await intent({ intent: "is there enough free memory on the hosts for a 64 GB VM?" });
    expect(flow).toMatchObject({ status: "rejected", dag_id: null, run_id: null });
    expect(flow.summary).toMatch(/- b: does not fit: memory: 65536 MiB asked, 10976 MiB free/);
    expect(flow.summary).toMatch(/No host fits it now/);
  });

  test("the chat answers the same fit question from the inventory, with the size and each host's verdict", async () => {
    const res = await request(s.app).post("/chat").send({ message: "can any host take a vm with 4 cpus, 8gb memory and 200gb disk?" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: "inventory", fit: { size: { cpus: 4, memory_mb: 8192, disk_gb: 200 }, host: null } });
    // b has the memory but not the disk: 190 GB free after its reserve.
    expect(res.body.fit.verdicts.find((v: { host: string }) => v.host === "b")).toMatchObject({ fits: false, reasons: ["disk: 200 GB asked, 190 GB free after a 10 GB reserve"] });
    expect(res.body.answer).toMatch(/No host fits it now/);
  });

  test("a certificate-expiry question is a plan of the health check's certificate report, never a CA", async () => {
    const flow = await intent({ intent: "any TLS certs going stale soon?", auto_execute: false });
    expect(flow).toMatchObject({ dag_id: "infrastructure_health_check", params: { checks: ["certificates"] } });
    const windowed = await intent({ intent: "check for certificates expiring in the next 14 days", auto_execute: false });
    expect(windowed).toMatchObject({ dag_id: "infrastructure_health_check", params: { checks: ["certificates"], cert_warn_days: 14 } });
  });

  test("a stale or failed probe counts as down in the chat answer", async () => {
    await inv.saveProbe("a", { capacity: cap({ probed_at: agoIso(120) }) });
    await inv.saveProbe("b", { error: "cannot reach root@10.0.0.12:22: ECONNREFUSED" });
    await restartServices();
    const res = await request(s.app).post("/chat").send({ message: "how full is host b" });
    expect(res.body.mode).toBe("inventory");
    expect(res.body.answer).toMatch(/- a \(active\): DOWN: not probed for 12\d s; its last good probe/);
    expect(res.body.answer).toMatch(/- b \(active\): DOWN: cannot reach root@10.0.0.12:22: ECONNREFUSED/);
    expect(res.body.answer).toMatch(/No host is up and active/);
  });
});
