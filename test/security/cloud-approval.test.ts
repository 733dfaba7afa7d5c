import { readFileSync } from "node:fs";
import path from "node:path";
import { sampleHostRow } from "@svc/testing";
import { cloudTargets } from "../../packages/engine/src/api/cloud-approval";
import { defaultOperators } from "@svc/operators";
import { createEngineApi } from "../../packages/engine/src/api/engine-api";
import { createApiFixture, type ApiFixture } from "../../packages/engine/src/api/test-helpers";

// A VM on a cloud host bills an account: with SVC_CLOUD_APPROVAL=op (the default) a trigger that
// would create one needs the role op; an internal trigger (no caller role) and libvirt runs are unchanged.
// The shipped DAG, its settings defaults made literal (the fixture syncs without settings).
const VM_DEPLOYMENT = readFileSync(path.resolve(__dirname, "../../dags/vm_deployment.yaml"), "utf8")
  .replace('"{{ settings.default_image }}"', "debian12")
  .replace('["{{ settings.vm_network }}"]', "[user]");
const CONF = { vm_name: "web01", image: "debian12", nets: ["user"] };
const role = (have: "user" | "op") => (need: string) => (have === "op" ? need !== "admin" : need === "user" || need === "viewer");

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("cloudappr", { dags: { "vm_deployment.yaml": VM_DEPLOYMENT }, catalog: defaultOperators() });
  await f.db
    .insertInto("hypervisor_host")
    .values([
      { ...sampleHostRow("lab2", "127.0.0.1", { port: 2222 }), labels: "{}", created_by: "test" },
      {
        ...sampleHostRow("aws-eu", "ec2.eu-west-1.amazonaws.com", { port: 443, ssh_user: "svc" }),
        labels: JSON.stringify({ tier: "edge" }),
        provider: "aws",
        provider_settings: JSON.stringify({ region: "eu-west-1", credentials: "secrets-file" }),
        created_by: "test",
      },
    ])
    .execute();
});
afterAll(() => f.close());

let n = 0;
const runId = () => `manual__cloud_${++n}`;

test("a user may not trigger a VM creation on a cloud host: 403 naming the task, the host and the setting", async () => {
  const refused = f.api.triggerDagRun("vm_deployment", { conf: { ...CONF, host: "aws-eu" }, runId: runId(), callerHasRole: role("user") });
  await expect(refused).rejects.toMatchObject({ code: "forbidden" });
  await expect(refused).rejects.toThrow(/needs the role 'op' or an op's approval \(SVC_CLOUD_APPROVAL=op\): create_vm creates a VM on the aws host 'aws-eu'/);

  expect(await f.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "vm_deployment").execute()).toEqual([]);
});

test("an op may; so may an internal trigger (no caller role), and a user on a libvirt host or deleting", async () => {
  await expect(f.api.triggerDagRun("vm_deployment", { conf: { ...CONF, host: "aws-eu" }, runId: runId(), callerHasRole: role("op") })).resolves.toMatchObject({ state: "queued" });
  await expect(f.api.triggerDagRun("vm_deployment", { conf: { ...CONF, host: "aws-eu" }, runId: runId() })).resolves.toMatchObject({ state: "queued" });
  await expect(f.api.triggerDagRun("vm_deployment", { conf: { ...CONF, host: "lab2" }, runId: runId(), callerHasRole: role("user") })).resolves.toMatchObject({ state: "queued" });
  await expect(f.api.triggerDagRun("vm_deployment", { conf: CONF, runId: runId(), callerHasRole: role("user") })).resolves.toMatchObject({ state: "queued" });
  const del = { action: "delete", vm_name: "web01", host: "aws-eu" };
  await expect(f.api.triggerDagRun("vm_deployment", { conf: del, runId: runId(), callerHasRole: role("user") })).resolves.toMatchObject({ state: "queued" });
});

test("SVC_CLOUD_APPROVAL=none leaves the usual rules", async () => {
  const api = createEngineApi({ db: f.db, notifier: f.notifier, dagsDir: f.dagsDir, catalog: defaultOperators(), cloudApproval: "none" });
  await expect(api.triggerDagRun("vm_deployment", { conf: { ...CONF, host: "aws-eu" }, runId: runId(), callerHasRole: role("user") })).resolves.toMatchObject({ state: "queued" });
});

test("asking for a cloud provider, a region or a cloud host's labels counts as a cloud target; libvirt and skipped tasks do not", async () => {
  const def = {
    dag_id: "d",
    tasks: [
      {
        task_id: "a",
        operator: "vm_create",
        when: null,
        args: { name: "x", provider: "{{ params.provider }}", region: "{{ params.region }}", host_labels: { tier: "{{ params.tier }}" } },
      },
      { task_id: "b", operator: "vm_create", when: "{{ params.never }}", args: { name: "y", host: "aws-eu" } },
    ],
  } as unknown as Parameters<typeof cloudTargets>[1];
  const none = { provider: "", region: "", tier: "", never: false };
  expect(await cloudTargets(f.db, def, none)).toEqual([]);
  expect(await cloudTargets(f.db, def, { ...none, provider: "libvirt" })).toEqual([]);
  expect(await cloudTargets(f.db, def, { ...none, provider: "hetzner" })).toEqual(["a asks for the provider hetzner"]);
  expect(await cloudTargets(f.db, def, { ...none, region: "eu-west-1" })).toEqual(["a asks for the region eu-west-1"]);
  expect(await cloudTargets(f.db, def, { ...none, tier: "edge" })).toEqual(["a asks for labels the aws host 'aws-eu' carries"]);
  expect(await cloudTargets(f.db, def, { ...none, never: true })).toEqual(["b creates a VM on the aws host 'aws-eu'"]);
});
