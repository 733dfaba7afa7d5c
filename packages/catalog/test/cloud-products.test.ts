import { restrictedParamsSet, validateParams, type DagDefinition } from "@svc/dags";
import { PRODUCT_PORTS, productFirewall } from "@svc/vm/plan";
import { loadCatalogue } from "./load-catalogue";
import { simulateHosts } from "./simulate-hosts";

// The four product DAGs on a cloud host (hz, a Hetzner host): create_vm asks for the product's own
// firewall with allow_from as given, the KVM host's own steps (its /etc/hosts, routes) are skipped,
// the product records go to the cloud host's host side (the configured host) naming the cloud host,
// and allow_from is validated and reserved as the param says.
let dags: Record<string, DagDefinition>;
beforeAll(async () => {
  dags = await loadCatalogue();
});

const world = { placed: "hz", held: {}, clouds: { hz: "hetzner" } };
const PRODUCT_OF: Record<string, string> = { identity_deployment: "identity", ca_deployment: "ca", registry_deployment: "registry", router_deployment: "router" };
const KVM_HOST_ONLY: Record<string, string[]> = {
  identity_deployment: ["register_record", "remove_record"],
  ca_deployment: ["register_record", "remove_record"],
  registry_deployment: ["register_record", "remove_record"],
  router_deployment: ["host_routes", "remove_host_config"],
};
const CIDRS = ["198.51.100.0/24", "2001:db8::/32"];

test.each(Object.keys(PRODUCT_OF))("%s on a cloud host: create_vm carries the product and allow_from, no forwards, no KVM-host step, and its record names the cloud host", (id) => {
  const conf = {
    host: "hz",
    nets: ["user"],
    allow_from: CIDRS,
    ...(id === "ca_deployment" ? { ca_port: 8443 } : {}),
    ...(id === "registry_deployment" ? { registry_type: "distribution" } : {}),
    ...(id === "router_deployment" ? { networks: [] } : {}),
  };
  const created = simulateHosts(dags[id]!, conf, world);
  expect(created.create_vm!.args).toMatchObject({ product: PRODUCT_OF[id], allow_from: CIDRS });
  // Nothing libvirt-only reaches a cloud host's create (its driver refuses those by name).
  expect(created.create_vm!.args).toMatchObject({ forward_ports: [], user_net_outbound: false });
  if (id === "ca_deployment") expect(created.create_vm!.args.product_options).toEqual({ ca_port: 8443 });
  if (id === "registry_deployment") expect(created.create_vm!.args.product_options).toEqual({ registry_type: "distribution" });
  const deleted = simulateHosts(dags[id]!, { host: "hz", action: "delete" }, world);
  expect(deleted.delete_vm).toBeDefined();
  const ran = [...Object.keys(created), ...Object.keys(deleted)];
  expect(KVM_HOST_ONLY[id]!.filter((t) => ran.includes(t))).toEqual([]);
  if (id === "router_deployment") return;
  expect(created.record_product!.args).toMatchObject({ host: "hz", on_host: true, extra_vars: { record: { cloud_host: "hz" } } });
  expect(deleted.remove_product!.args).toMatchObject({ host: "hz", on_host: true, extra_vars: { record_state: "absent" } });
});

test("on a libvirt host the same DAGs still forward their ports and keep their host-side records", () => {
  const ran = simulateHosts(dags.identity_deployment!, { host: "lab2", nets: ["user"] }, { placed: "lab2", held: {} });
  expect(ran.create_vm!.args.forward_ports).toEqual(["tcp/53", "udp/53", "tcp/88", "udp/88", "tcp/389", "tcp/464", "tcp/636"]);
  expect(ran.create_vm!.args.allow_from).toEqual([]);
  expect(ran.record_product!.args).toMatchObject({ extra_vars: { record: { cloud_host: "" } } });
  const del = simulateHosts(dags.identity_deployment!, { host: "lab2", action: "delete" }, { placed: "lab2", held: {} });
  expect(del.remove_record).toBeDefined();
  expect(del.remove_product).toBeDefined();
});

test.each(Object.keys(PRODUCT_OF))("%s refuses an allow_from entry that is not a network, naming the entry; never drops it", (id) => {
  for (const bad of ["198.51.100.7", "198.51.100.7/24", "10.0.0.0/33", "1.2.3.4/0", "example.org/32", "0::0/0"]) {
    const v = validateParams(dags[id]!, { allow_from: ["192.0.2.0/24", bad] });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.errors.map((e) => `${e.field}: ${e.message}`)).toEqual(['allow_from[1]: must match format "cidr"']);
  }
  expect(validateParams(dags[id]!, { allow_from: ["192.0.2.0/24", "0.0.0.0/0", "::/0"] }).ok).toBe(true);
});

test.each(Object.keys(PRODUCT_OF))("%s: allow_from holding 0.0.0.0/0 or ::/0 needs an admin; other networks need no role", (id) => {
  expect(restrictedParamsSet(dags[id]!, { allow_from: ["198.51.100.0/24"] })).toEqual([]);
  expect(restrictedParamsSet(dags[id]!, { allow_from: ["198.51.100.0/24", "0.0.0.0/0"] })).toEqual([{ name: "allow_from", minRole: "admin", values: ["0.0.0.0/0"] }]);
  expect(restrictedParamsSet(dags[id]!, { allow_from: ["::/0"] })).toEqual([{ name: "allow_from", minRole: "admin", values: ["::/0"] }]);
});

test("each product's rules: SSH from svc's address, its table's ports to allow_from and nothing else; none but SSH without allow_from", () => {
  const ssh = { proto: "tcp", port: 22, from: ["192.0.2.7/32"] };
  const open = (proto: string, port: number) => ({ proto, port, from: CIDRS });
  expect(productFirewall("identity", {}, CIDRS, ["192.0.2.7/32"])).toEqual([
    ssh,
    ...[
      ["tcp", 53],
      ["udp", 53],
      ["tcp", 88],
      ["udp", 88],
      ["tcp", 389],
      ["tcp", 464],
      ["udp", 464],
      ["tcp", 636],
    ].map(([p, n]) => open(p as string, n as number)),
  ]);
  expect(productFirewall("ca", {}, CIDRS, ["192.0.2.7/32"])).toEqual([ssh, open("tcp", 443)]);
  expect(productFirewall("ca", { ca_port: 8443 }, CIDRS, ["192.0.2.7/32"])).toEqual([ssh, open("tcp", 8443)]);
  expect(productFirewall("registry", {}, CIDRS, ["192.0.2.7/32"])).toEqual([ssh, open("tcp", 5000)]);
  expect(productFirewall("registry", { registry_type: "mirror-registry" }, CIDRS, ["192.0.2.7/32"])).toEqual([ssh, open("tcp", 8443)]);
  expect(productFirewall("registry", { registry_type: "harbor" }, CIDRS, ["192.0.2.7/32"])).toEqual([ssh, open("tcp", 443)]);
  expect(productFirewall("router", {}, CIDRS, ["192.0.2.7/32"])).toEqual([ssh, open("tcp", 53), open("udp", 53)]);
  for (const p of Object.keys(PRODUCT_PORTS) as (keyof typeof PRODUCT_PORTS)[]) expect(productFirewall(p, {}, [], ["192.0.2.7/32"])).toEqual([ssh]);
});

test("router_deployment on a cloud host with lab networks (the default two) is refused before anything is made, naming the host; networks [] makes the router; a libvirt host still makes its networks", () => {
  const refused = simulateHosts(dags.router_deployment!, { host: "hz", nets: ["user"] }, world, ["refuse_cloud_networks"]);
  expect(refused.refuse_cloud_networks!.args).toMatchObject({ non_retryable: true });
  expect(String(refused.refuse_cloud_networks!.args.message)).toMatch(/^lab networks are libvirt networks of a KVM host, and the cloud host hz has none: give networks: \[\]/);
  expect(Object.keys(refused).filter((t) => ["host_networks", "create_vm", "configure"].includes(t))).toEqual([]);
  const made = simulateHosts(dags.router_deployment!, { host: "hz", nets: ["user"], networks: [] }, world);
  expect(made.refuse_cloud_networks).toBeUndefined();
  expect(made.host_networks).toBeUndefined();
  expect(made.create_vm).toMatchObject({ host: "hz", args: expect.objectContaining({ product: "router" }) });
  const onLibvirt = simulateHosts(dags.router_deployment!, { host: "lab2" }, { placed: "lab2", held: {} });
  expect(onLibvirt.refuse_cloud_networks).toBeUndefined();
  expect(onLibvirt.host_networks).toMatchObject({ host: "lab2" });
  expect(onLibvirt.create_vm).toBeDefined();
});
