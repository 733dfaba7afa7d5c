import { answerFlow, approveFlow, processFlow, type PipelineDeps } from "@svc/flows";
import { createHostInventory, type HostInventory, type HostRecord } from "@svc/hosts";
import { sampleCapacity, sampleHostRow } from "@svc/testing";
import type { CloudPlanRequest, CloudVmPlan } from "@svc/vm";
import { createStack, type Stack } from "../../assistant-api/test/stack";
import { vmCreateDag } from "../../assistant-api/test/vm-dag";
import { pipelineOf } from "./pick-router";

// Placement never bills a cloud account by surprise: a request names its cloud ("on aws in
// eu-west-1", "on hz-test") to get there, an op approves the VM, and the plan says what it would be.
// The cloud plan is the planner port (the drivers' plan is tested against moto and the Hetzner fake).
const VM_DAG = vmCreateDag({ image: "debian12", memoryMb: 2048, cpus: 2 });

let s: Stack;
let inv: HostInventory;
let base: PipelineDeps & { workflowUiUrl: string };
const asked: { host: string; want: CloudPlanRequest }[] = [];

/** What the drivers' plan answers for these hosts (Hetzner's price as its server_types give it; EC2 gives none). */
async function planner(h: HostRecord, want: CloudPlanRequest): Promise<CloudVmPlan> {
  asked.push({ host: h.name, want });
  if (h.provider === "hetzner")
    return {
      provider: "hetzner",
      region: h.provider_settings.location!,
      size: { name: "cx23", cpus: 2, memory_mb: 4096 },
      image: { os: want.image, mapping: "debian-12", id: "100" },
      hourly_price: { amount: "0.0071", net: "0.0060", currency: "EUR" },
      price_note: null,
    };
  return {
    provider: "aws",
    region: h.provider_settings.region!,
    size: { name: "t3.medium", cpus: 2, memory_mb: 4096 },
    image: { os: want.image, mapping: "owner 136693071363, name debian-12-amd64-*, newest first", id: "ami-0123456789abcdef0" },
    hourly_price: null,
    price_note: "no price from the API (EC2 states none; see the AWS pricing page for the region)",
  };
}

beforeAll(async () => {
  s = await createStack("orchcloud", { orchestrator: false, extraDags: { "vm-deployment.yaml": VM_DAG } });
  await s.assistant.engine.setPaused("vm_deployment", false);
  inv = createHostInventory(s.tdb.db);
  await inv.insert(sampleHostRow("lab2", "127.0.0.2", { reserve_memory_mb: 512, reserve_disk_gb: 5 }), "test");
  await inv.saveProbe("lab2", { capacity: sampleCapacity({ images: ["debian12"], probed_at: new Date(Date.now() + 3600_000).toISOString() }) });
  await inv.insert(
    { ...sampleHostRow("aws-eu", "ec2.eu-west-1.amazonaws.com", { port: 443 }), provider: "aws", provider_settings: { region: "eu-west-1", credentials: "secrets-file" } },
    "test",
  );
  await inv.insert({ ...sampleHostRow("hz-test", "api.hetzner.cloud", { port: 443 }), provider: "hetzner", provider_settings: { location: "fsn1" } }, "test");
  base = { ...pipelineOf(s), hosts: { list: () => inv.list(), cloudPlan: planner, maxProbeAgeMs: 7200_000 } };
});
afterAll(async () => s?.close());

/** The kinds of approval a flow waits for (the workflow's own, for its action param and vm tag, on any host). */
const kinds = (row: { approval: unknown }) => ((row.approval as { needs?: { kind: string }[] }).needs ?? []).map((n) => n.kind);

const plan = async (intent: string, o: { pipeline?: PipelineDeps & { workflowUiUrl: string }; autoApproveRole?: "op" } = {}) => {
  const flow = await s.assistant.store.create({ intent, requestedParams: {}, autoApprove: o.autoApproveRole !== undefined, autoApproveRole: o.autoApproveRole, autoExecute: true });
  await processFlow(o.pipeline ?? base, flow.flow_id);
  return s.flow(flow.flow_id);
};

test("'on aws in eu-west-1' plans vm_deployment on the matching host and waits for an op, the plan naming provider, region, size, image and price", async () => {
  const row = await plan("create a vm called web01 on aws in eu-west-1");
  expect(row).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { vm_name: "web01", host: "aws-eu" }, run_id: null });
  expect(row.approval).toMatchObject({ required: true, required_role: "op" });
  expect(kinds(row)).toContain("cloud");
  expect(row.summary).toMatch(
    /VM 'web01' would be created on the aws host 'aws-eu' as aws eu-west-1: size t3\.medium \(2 vCPUs, 4096 MiB\), image debian12 → owner 136693071363, name debian-12-amd64-\*, newest first \(ami-0123456789abcdef0\), no price from the API/,
  );
  expect(row.summary).toMatch(/billed to that account: an op approves it \(SVC_CLOUD_APPROVAL=op\)/);
  expect((row.placement as { vms: unknown[] }).vms[0]).toMatchObject({ host: "aws-eu", provider: "aws", region: "eu-west-1", cloud: { size: { name: "t3.medium" } } });
  expect(asked.at(-1)).toEqual({ host: "aws-eu", want: { image: "debian12", cpus: 2, memoryMb: 2048 } });
});

test("a user cannot approve it; an op's approval starts the run on that host", async () => {
  const row = await plan("create a vm called web02 on aws in eu-west-1");
  await expect(approveFlow(s.assistant.store, row.flow_id, "u1", "user")).rejects.toMatchObject({ code: "forbidden" });
  await approveFlow(s.assistant.store, row.flow_id, "op1", "op");
  expect((await processFlow(base, row.flow_id)).status).toBe("in_progress");
  const run = await s.assistant.engine.getDagRun("vm_deployment", (await s.flow(row.flow_id)).run_id!);
  expect(run.conf).toMatchObject({ vm_name: "web02", host: "aws-eu" });
});

test("'on hz-test' (a host's name) and 'on hetzner in fsn1' plan on the Hetzner host with its hourly price", async () => {
  for (const intent of ["create a vm called c1 on hz-test", "create a vm called c2 on hetzner in fsn1"]) {
    const row = await plan(intent);
    expect(row).toMatchObject({ status: "awaiting_approval", params: { host: "hz-test" } });
    expect(row.summary).toMatch(/hetzner fsn1: size cx23 \(2 vCPUs, 4096 MiB\), image debian12 → debian-12 \(100\), 0\.0060 EUR\/hour net \(0\.0071 with VAT\)/);
  }
});

test("a region no host has is asked again naming the cloud hosts there are; it never falls back to the libvirt host", async () => {
  const row = await plan("create a vm called web03 on aws in us-east-1");
  expect(row.status).toBe("needs_input");
  expect(row.missing_params).toEqual(["host"]);
  expect(row.params).not.toHaveProperty("host");
  expect(row.summary).toMatch(
    /no host of the inventory is a aws host in us-east-1: the cloud hosts are aws-eu \(aws eu-west-1\), hz-test \(hetzner fsn1\); nothing goes to another host instead/,
  );
  expect(row.run_id).toBeNull();
  // Answered with a host of the inventory, the plan goes on there, and an op approves it.
  await answerFlow({ store: s.assistant.store, engine: s.assistant.engine }, row.flow_id, { actor: "op1", role: "op" }, { answer: "aws-eu" });
  await processFlow(base, row.flow_id);
  const answered = await s.flow(row.flow_id);
  expect(answered).toMatchObject({ status: "awaiting_approval", params: { host: "aws-eu", vm_name: "web03" } });
  expect(kinds(answered)).toContain("cloud");
});

test("a request naming no cloud goes to the libvirt host and needs no cloud approval", async () => {
  const row = await plan("create a vm called web04");
  expect((row.placement as { vms: unknown[] }).vms[0]).toMatchObject({ host: "lab2", provider: "libvirt", region: null });
  expect(row.params?.host ?? "").toBe("");
  expect(kinds(row)).not.toContain("cloud");
});

test("an op's auto_approve covers the cloud approval; SVC_CLOUD_APPROVAL=none asks for none", async () => {
  expect((await plan("create a vm called web05 on aws in eu-west-1", { autoApproveRole: "op" })).status).toBe("in_progress");
  const none = { ...base, hosts: { ...base.hosts!, cloudApproval: "none" as const } };
  const row = await plan("create a vm called web06 on hz-test", { pipeline: none });
  expect(row.params).toMatchObject({ host: "hz-test" });
  expect(kinds(row)).not.toContain("cloud");
});

test("a planner that fails says why in the plan; the flow still waits for an op", async () => {
  const failing = {
    ...base,
    hosts: { ...base.hosts!, cloudPlan: () => Promise.reject(new Error("aws eu-west-1: AuthFailure: AWS was not able to validate the provided access credentials")) },
  };
  const row = await plan("create a vm called web07 on aws in eu-west-1", { pipeline: failing });
  expect(row.status).toBe("awaiting_approval");
  expect(row.summary).toMatch(/aws could not plan it: aws eu-west-1: AuthFailure/);
});
