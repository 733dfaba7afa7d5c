import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { createOfflineRouter } from "../router/offline-router";
import { readHostReference } from "./host-reference";

const router = createOfflineRouter(CATALOG_FIXTURE);

test("'on host b' names the host as typed; no host named leaves it unset", () => {
  expect(readHostReference("create a vm called web02 on host b")).toEqual({ value: "b" });
  expect(readHostReference("put it on the hypervisor lab-2.")).toEqual({ value: "lab-2" });
  expect(readHostReference("create a vm called web02")).toBeUndefined();
  expect(readHostReference("on the host with the most room")).toBeUndefined();
});

test("a host that breaks the rule is asked again, never folded; shell syntax rejects the request", () => {
  expect(readHostReference("on host B_2")?.issue).toMatchObject({ field: "host", given: "B_2", rule: expect.stringMatching(/^host must be a host of the inventory/) });
  expect(readHostReference("on host Lab2")?.issue).toMatchObject({
    field: "host",
    given: "Lab2",
    rule: expect.stringMatching(/^host must be lower-case \('Lab2' is not converted\)/),
  });
  expect(readHostReference("on host -b")?.issue?.field).toBe("host");
  expect(readHostReference("on host b$(reboot)")).toEqual({ shell: true });
});

test("the router: 'on host b' reaches vm_deployment as host; a bad host is needs_input; no host, no host param", () => {
  expect(router.route("create a vm called web02 on host b")).toMatchObject({ status: "ready", dag_id: "vm_deployment", params: { action: "create", vm_name: "web02", host: "b" } });
  const bad = router.route("create a vm called web02 on host B_2");
  expect(bad).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", params: { vm_name: "web02" }, input: [{ field: "host", given: "B_2" }] });
  expect(bad.params).not.toHaveProperty("host");
  const none = router.route("create a vm called web02 with 4 cpus");
  expect(none).toMatchObject({ status: "ready", dag_id: "vm_deployment", params: { vm_name: "web02", cpus: 4 } });
  expect(none.params).not.toHaveProperty("host");
  expect(router.route("delete the vm web02 on host lab2")).toMatchObject({ dag_id: "vm_deployment", params: { action: "delete", vm_name: "web02", host: "lab2" } });
  expect(router.route("create a vm called web02 on host $(reboot)")).toMatchObject({ dag_id: null, refused: { kind: "unsafe" } });
});

test("a product workflow with a host param is planned on the host named; a bad host there is needs_input, never folded", () => {
  const r = router.route("deploy an identity server with dns for lab.example.com on host b");
  expect(r).toMatchObject({ status: "ready", dag_id: "identity_deployment", params: { domain: "lab.example.com", host: "b" } });
  expect(router.route("install harbor on host lab2")).toMatchObject({ dag_id: "registry_deployment", params: { registry_type: "harbor", host: "lab2" } });
  const bad = router.route("deploy an identity server with dns for lab.example.com on host B_2");
  expect(bad).toMatchObject({ status: "needs_input", dag_id: "identity_deployment", input: [{ field: "host", given: "B_2" }] });
  expect(bad.params).not.toHaveProperty("host");
});

test("the health check on host b checks host b; the host reference's words name no check area", () => {
  const all = router.route("run the infrastructure health check on host b");
  expect(all).toMatchObject({ status: "ready", dag_id: "infrastructure_health_check", params: { host: "b" } });
  expect(all.params).not.toHaveProperty("checks");
  expect(router.route("check the dns and certificates on the kvm host lab2")).toMatchObject({
    dag_id: "infrastructure_health_check",
    params: { checks: ["dns", "certificates"], host: "lab2" },
  });
  expect(router.route("check the hypervisor on host b")).toMatchObject({ dag_id: "infrastructure_health_check", params: { checks: ["hypervisor"], host: "b" } });
});

test("a host named for a workflow that cannot be pinned to one is refused, never dropped", () => {
  // The shipped workflows that act on a host all take one now: a catalogue whose identity workflow has no host param.
  const hostless = CATALOG_FIXTURE.map((e) =>
    e.dag_id === "identity_deployment" ? { ...e, params: Object.fromEntries(Object.entries(e.params).filter(([k]) => k !== "host")) } : e,
  );
  const r = createOfflineRouter(hostless).route("deploy an identity server with dns for lab.example.com on host b");
  expect(r).toMatchObject({ status: "rejected", dag_id: null, refused: { kind: "out_of_scope" } });
  expect(r.reason).toMatch(/^identity_deployment cannot be pinned to host 'b': only [a-z_, ]+ can be pinned to a host/);
});

test("'create a vm called c1 on hz-test' plans vm_deployment on the host hz-test (a hyphenated name ending the request, without the word host)", () => {
  expect(readHostReference("create a vm called c1 on hz-test")).toEqual({ value: "hz-test" });
  expect(readHostReference("create a vm called c1 on debian12")).toBeUndefined();
  expect(router.route("create a vm called c1 on hz-test")).toMatchObject({
    status: "ready",
    dag_id: "vm_deployment",
    params: { action: "create", vm_name: "c1", host: "hz-test" },
  });
});
