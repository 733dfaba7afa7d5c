import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { loadEvalCatalog } from "../eval/load-catalog";
import { createOfflineRouter, type OfflineRouter } from "./offline-router";

const router = createOfflineRouter(CATALOG_FIXTURE);

describe("offline router: chat around the request", () => {
  test.each([
    ["good morning! whenever you can, please create a vm called ledger-3 with 2 vcpus. much appreciated", "vm_deployment", { vm_name: "ledger-3", cpus: 2 }],
    ["the weather is grim today. anyway, could you stand up freeipa for ops.example.net? thanks!", "identity_deployment", { domain: "ops.example.net" }],
    ["lol the printer is on fire again. unrelated: tear down the harbor registry", "registry_deployment", { action: "delete" }],
    ["heya, when you get a chance run the health check on dns, thanks!", "infrastructure_health_check", { checks: ["dns"] }],
  ])("'%s' routes the request inside the chat", (intent, dagId, params) => {
    expect(router.route(intent)).toMatchObject({ status: "ready", dag_id: dagId, params });
  });

  test("chat never hides unsafe text: the gate reads the whole message", () => {
    expect(router.route("thanks so much! create a vm called web01; rm -rf /").refused?.kind).toBe("unsafe");
  });

  test("a message that is only chat asks for nothing", () => {
    expect(router.route("hi there, hope you had a good weekend! thanks").dag_id).toBeNull();
  });
});

describe("offline router: slang and short forms of delete and create", () => {
  test.each([
    "decom the vm build-12",
    "bin vm build-12",
    "ditch vm build-12",
    "kill off vm build-12",
    "lösch die VM build-12",
    "elimine la VM llamada build-12",
    "vire la vm build-12",
  ])("'%s' deletes, never creates, the VM it names", (intent) => {
    expect(router.route(intent)).toMatchObject({ status: "ready", dag_id: "vm_deployment", params: { action: "delete", vm_name: "build-12" } });
  });

  test.each(["mak me a vm called pg-test", "mk vm called pg-test", "fire up a vm named pg-test"])("'%s' creates the VM", (intent) => {
    expect(router.route(intent)).toMatchObject({ dag_id: "vm_deployment", params: { action: "create", vm_name: "pg-test" } });
  });
});

describe("offline router: mentions that are not requests", () => {
  test.each([
    "write a blog post about how we run openshift",
    "book a meeting room for the harbor migration review",
    "the history of kerberos",
    "create a jira ticket for the broken idm vm",
    "make a slide deck about our vyos routers",
    "add the registry outage to the incident report",
  ])("'%s' is refused with what the catalogue can do", (intent) => {
    const r = router.route(intent);
    expect(r).toMatchObject({ status: "rejected", dag_id: null, refused: { kind: "out_of_scope" } });
    expect(r.refused?.message).toMatch(/I can: /);
  });

  test("a request that also asks for a deployment in its own clause is still routed", () => {
    expect(router.route("write down the domain, then deploy freeipa for lab.example.com")).toMatchObject({ dag_id: "identity_deployment", params: { domain: "lab.example.com" } });
  });
});

describe("offline router: questions about past runs", () => {
  test.each([
    ["why did my last identity deployment fail?", "identity_deployment"],
    ["did the cluster install finish?", "cluster_initial_deployment"],
    ["show me the logs of the failed registry deployment", "registry_deployment"],
    ["did you delete web01?", null],
  ])("'%s' starts nothing and says where the run is", (intent, dagId) => {
    const r = router.route(intent);
    expect(r).toMatchObject({ status: "rejected", dag_id: null, refused: { about_run: { dag_id: dagId } } });
    expect(r.refused?.message).toMatch(/nothing was started.*\/orchestrator\/observe/);
  });

  test("a question about the state of a service is still the read-only check, and an order after a failed run still runs", () => {
    expect(router.route("is the registry running?").dag_id).toBe("infrastructure_health_check");
    expect(router.route("install openshift; the last try on version 4.17 failed, use 4.18")).toMatchObject({ dag_id: "cluster_initial_deployment", params: { version: "4.18" } });
  });
});

describe("offline router: values the catalogue cannot honour", () => {
  test.each([
    ["install openshift 3.11", "3.11"],
    ["okd 5.0 compact cluster", "5.0"],
    ["install ocp v3 for the lab", "3"],
  ])("'%s' asks for the version, naming what is offered, instead of running the default", (intent, given) => {
    const r = router.route(intent);
    expect(r).toMatchObject({ status: "needs_input", dag_id: "cluster_initial_deployment", input: [{ field: "version", given }] });
    expect(r.params.version).toBeUndefined();
  });

  test("'OCP 4' names the generation offered: the default release stands", () => {
    expect(router.route("bring up an OCP 4 cluster")).toMatchObject({ status: "ready", params: {} });
  });
});

describe("offline router: parameters in words", () => {
  test.each([
    ["install openshift on three nodes", { deployment_size: "compact" }],
    ["openshift with a single master and no workers", { deployment_size: "sno" }],
    ["okd, 3 masters and 3 workers", { deployment_size: "full" }],
    ["deploy ocp4.16 on one node", { version: "4.16", deployment_size: "sno" }],
    ["install openshift cluster dev-east version 4.17", { cluster_name: "dev-east", version: "4.17" }],
    ["freeipa for lab.example.net using 10.1.1.53 as the upstream dns", { domain: "lab.example.net", dns_forwarder: "10.1.1.53" }],
    ["a vm with two cores, eight gigabytes of memory and a forty gig disk", { cpus: 2, memory_mb: 8192, disk_gb: 40 }],
  ])("'%s' → %j", (intent, params) => {
    expect(router.route(intent)).toMatchObject({ status: "ready", params });
  });
});

describe("offline router: names are judged as typed", () => {
  test.each([
    ["create a vm called ...", "..."],
    ["new vm named .", "."],
    ["spin up a vm named ｄｅｖ０１", "ｄｅｖ０１"],
    ["create vm ｗｅｂ－７", "ｗｅｂ－７"],
    ["create a vm named café-1", "café-1"],
  ])("'%s' asks for the name and never creates a VM under another one", (intent, given) => {
    const r = router.route(intent);
    expect(r).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", input: [{ field: "vm_name", given }] });
    expect(r.params.vm_name).toBeUndefined();
    expect(r.input?.[0]?.rule).toMatch(/vm_name must/);
  });
});

describe("offline router: OS names map to image names", () => {
  let real: OfflineRouter;
  beforeAll(async () => {
    real = createOfflineRouter((await loadEvalCatalog()).entries);
  });

  test("'stand up an identity server with DNS for corp.example.org on debian' plans identity_deployment with the domain and the Debian 12 image (repository catalogue)", () => {
    expect(real.route("stand up an identity server with DNS for corp.example.org on debian")).toMatchObject({
      status: "ready",
      dag_id: "identity_deployment",
      params: { domain: "corp.example.org", image: "debian12" },
    });
  });

  test("'we need a private CA for the lab' plans ca_deployment's create (repository catalogue)", () => {
    const r = real.route("we need a private CA for the lab");
    expect(r).toMatchObject({ status: "ready", dag_id: "ca_deployment" });
    // create is the workflow's default: the request sets no action and no other value.
    expect(r.params).toEqual({});
  });

  test("'set up a container registry with TLS from our CA ca01' plans registry_deployment with ca_vm ca01 (repository catalogue)", () => {
    expect(real.route("set up a container registry with TLS from our CA ca01")).toMatchObject({
      status: "ready",
      dag_id: "registry_deployment",
      params: { ca_vm: "ca01" },
    });
  });

  test("a CA name that breaks the name rule is asked again, never folded ('from our CA Lab_CA')", () => {
    const r = real.route("set up a container registry with TLS from our CA Lab_CA");
    expect(r.dag_id).toBe("registry_deployment");
    expect(r.params.ca_vm).toBeUndefined();
    expect(r.input).toEqual(expect.arrayContaining([expect.objectContaining({ field: "ca_vm", given: "Lab_CA" })]));
  });

  test("'issue a certificate for web01.lab.example.com from the CA' still plans ca_deployment (the CA is what is asked for)", () => {
    expect(real.route("issue a certificate for web01.lab.example.com from the CA")).toMatchObject({ dag_id: "ca_deployment" });
  });

  test.each([
    ["freeipa on debian 12", "debian12"],
    ["idm on bookworm", "debian12"],
    ["freeipa on centos stream 9", "centos9stream"],
    ["freeipa on centos stream 10", "centos10stream"],
    ["freeipa on rocky 9", "rocky9"],
  ])("'%s' → image %s", (intent, image) => {
    expect(real.route(intent)).toMatchObject({ status: "ready", dag_id: "identity_deployment", params: { image } });
  });

  test.each(["freeipa on debian 11", "freeipa on centos", "a certificate authority on ubuntu 22.04"])(
    "'%s' asks which image, naming the images offered, never the default",
    (intent) => {
      const r = real.route(intent);
      expect(r).toMatchObject({ status: "needs_input", input: [{ field: "image" }] });
      expect(r.params.image).toBeUndefined();
      expect(r.input?.[0]?.question).toMatch(/centos9stream \(CentOS Stream 9\)/);
    },
  );

  test("the generic VM workflow takes the release it is given, as before", () => {
    expect(router.route("create a vm from fedora 40")).toMatchObject({ status: "ready", params: { image: "fedora40" } });
  });
});
