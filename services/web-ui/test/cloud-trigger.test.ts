import request from "supertest";
import { createWebUiApp } from "../src/app";
import { createWebFixture, expectProblem, type WebFixture } from "./helpers";

// POST /api/v1/dags/{id}/dagRuns: a run that would create a VM on a cloud host needs the role op
// (SVC_CLOUD_APPROVAL=op, the default), as the flow's approval does; a user triggers libvirt runs as before.
const VM_DAG = `dag_id: cloud_vm
params:
  vm_name: {type: string, default: web01}
  host: {type: string, default: ""}
tasks:
  - task_id: create_vm
    operator: vm_create
    args: { name: "{{ params.vm_name }}", image: debian12, host: "{{ params.host or none }}" }
`;

let f: WebFixture;
const as = (role: "user" | "op") => {
  const app = createWebUiApp({ api: f.api, auth: { apiToken: `${role}-token-0123456789`, apiTokenRole: role } });
  return (conf: object) => request(app).post("/api/v1/dags/cloud_vm/dagRuns").set("Authorization", `Bearer ${role}-token-0123456789`).send({ conf });
};

beforeAll(async () => {
  f = await createWebFixture("webcloudtrig", { dags: { "cloud_vm.yaml": VM_DAG } });
  await f.db
    .insertInto("hypervisor_host")
    .values({
      name: "hz-fsn",
      ssh_user: "svc",
      address: "api.hetzner.cloud",
      port: 443,
      key_path: "/etc/svc/id_ed25519",
      provider: "hetzner",
      provider_settings: JSON.stringify({ location: "fsn1" }),
      labels: "{}",
      created_by: "test",
    })
    .execute();
});
afterAll(() => f.close());

test("a user's trigger of a VM on a cloud host is 403 problem JSON naming the host and the setting; nothing is created", async () => {
  const res = await as("user")({ host: "hz-fsn" });
  expectProblem(res, 403, /needs the role 'op' or an op's approval \(SVC_CLOUD_APPROVAL=op\): create_vm creates a VM on the hetzner host 'hz-fsn'/);
  expect(await f.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "cloud_vm").execute()).toEqual([]);
});

test("an op's trigger of it is created; a user's without a cloud host is too", async () => {
  expect((await as("op")({ host: "hz-fsn", vm_name: "web02" })).status).toBe(200);
  expect((await as("user")({ vm_name: "web03" })).status).toBe(200);
});
