import type { DagDefinition } from "@svc/dags";
import type { HostRecord, PlacementPreview } from "@svc/hosts";
import { silentLogger } from "@svc/logger";
import { cloudNeeds, withCloudPlans, type PlanVm } from "./cloud-plan";
import { firewallAsks } from "./placement-preview";

// The plan lists a product VM's firewall rules before approval: what its vm_create asks (product,
// allow_from) over the cloud host's SSH source (its ssh_from, else its bastion's IP).
const create = {
  task_id: "create_vm",
  operator: "vm_create",
  when: null,
  args: { name: "{{ params.vm_name }}", image: "debian12", product: "identity", allow_from: "{{ params.allow_from }}" },
};
const dag = { dag_id: "identity_deployment", tasks: [create] } as unknown as DagDefinition;
const host = (settings: Record<string, string>) => ({ name: "hz", provider: "hetzner", provider_settings: { location: "fsn1", ...settings } }) as unknown as HostRecord;
const preview: PlacementPreview = {
  weigher: "spread",
  computed_at: "2026-01-01T00:00:00.000Z",
  blocked: false,
  summary: "",
  vms: [
    {
      task_id: "create_vm",
      vm_name: "idm",
      memory_mb: 2048,
      cpus: 2,
      disks_gb: [40],
      image: "debian12",
      pinned: "hz",
      host: "hz",
      provider: "hetzner",
      region: "fsn1",
      verdicts: [],
      summary: "VM 'idm' goes to the hetzner host 'hz'.",
      blocked: false,
    },
  ],
};
const plan = async (settings: Record<string, string>, allow_from: string[]) =>
  (await withCloudPlans(preview, [host(settings)], undefined, silentLogger(), firewallAsks(dag, { vm_name: "idm", allow_from }))).vms[0] as PlanVm;

test("the plan of a product VM on a cloud host lists its firewall: SSH from the bastion's address, the product's ports to allow_from, in the approval's reason too", async () => {
  const vm = await plan({ bastion: "root@192.0.2.5:22" }, ["198.51.100.0/24"]);
  expect(vm.firewall).toBe(
    "Its own hetzner firewall would open only tcp/22 from 192.0.2.5/32; tcp/53, udp/53, tcp/88, udp/88, tcp/389, tcp/464, udp/464, tcp/636 from 198.51.100.0/24",
  );
  expect(vm.summary).toContain(vm.firewall);
  expect(cloudNeeds({ ...preview, vms: [vm] }, "op")[0]!.reason).toContain(vm.firewall);
});

test("with an empty allow_from the plan says the product's ports stay closed; the host's ssh_from wins over the bastion", async () => {
  const vm = await plan({ bastion: "root@192.0.2.5:22", ssh_from: "203.0.113.9/32" }, []);
  expect(vm.firewall).toBe("Its own hetzner firewall would open only tcp/22 from 203.0.113.9/32 (allow_from is empty: the identity ports stay closed)");
});

test("a host whose SSH source svc cannot tell (no ssh_from, a bastion by name) has the plan say the create would be refused", async () => {
  const vm = await plan({ bastion: "root@bastion.example.org" }, ["198.51.100.0/24"]);
  expect(vm.firewall).toMatch(/^Its create would be refused: svc cannot tell the address its SSH comes from on host 'hz' \(set the host's ssh_from\)$/);
});
