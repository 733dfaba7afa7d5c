import { loadEvalCatalog } from "../eval/load-catalog";
import { asksForLab, labNameOf, labProducts } from "./lab-route";
import { createOfflineRouter, type OfflineRouter } from "./offline-router";

let router: OfflineRouter;
beforeAll(async () => {
  router = createOfflineRouter((await loadEvalCatalog()).entries);
});

const words = (s: string) => s.toLowerCase().replace(/,/g, " , ").split(/\s+/).filter(Boolean);

describe("a lab as the thing to create or delete (repository catalogue)", () => {
  test("'stand up a lab for lab.example.com with DNS, a CA and a registry' plans lab_deployment with the domain and all four products", () => {
    expect(router.route("stand up a lab for lab.example.com with DNS, a CA and a registry")).toMatchObject({
      status: "ready",
      dag_id: "lab_deployment",
      params: { domain: "lab.example.com", products: ["router", "identity", "ca", "registry"] },
    });
  });

  test.each([
    ["create a lab with DNS and a CA", ["router", "identity", "ca"]],
    ["set up a lab without a registry", ["router", "identity", "ca"]],
    ["build a lab with just a registry", ["router", "registry"]],
  ])("'%s' asks for the products it names: %j", (sentence, products) => {
    expect(router.route(sentence)).toMatchObject({ status: "ready", dag_id: "lab_deployment", params: { products } });
  });

  test("a lab with no product named gets the workflow's default (no products param)", () => {
    const r = router.route("build me a whole lab called dev1 for dev1.example.org");
    expect(r).toMatchObject({ status: "ready", dag_id: "lab_deployment", params: { lab_name: "dev1", domain: "dev1.example.org" } });
    expect(r.params).not.toHaveProperty("products");
  });

  test("'tear down the lab dev1' plans the lab's delete with its name", () => {
    expect(router.route("tear down the lab dev1")).toMatchObject({ status: "ready", dag_id: "lab_deployment", params: { action: "delete", lab_name: "dev1" } });
  });

  test.each(["delete the lab dev1 and its members", "tear down the lab dev1 with all its members", "delete the lab dev1 with its vms"])(
    "'%s' plans the lab's delete with_members",
    (sentence) => {
      expect(router.route(sentence)).toMatchObject({ status: "ready", dag_id: "lab_deployment", params: { action: "delete", lab_name: "dev1", with_members: true } });
    },
  );

  test("a lab delete that does not name its members, or excludes them, does not set with_members", () => {
    expect(router.route("tear down the lab dev1").params).not.toHaveProperty("with_members");
    expect(router.route("delete the lab dev1 without its members").params).not.toHaveProperty("with_members");
  });

  test("a lab name the workflow cannot take is asked again, never shortened or dropped", () => {
    const r = router.route("create a lab named my_super_long_lab_name");
    expect(r).toMatchObject({ status: "needs_input", dag_id: "lab_deployment", input: [{ field: "lab_name", given: "my_super_long_lab_name" }] });
    expect(r.params).not.toHaveProperty("lab_name");
  });

  test.each([
    ["we need a private CA for the lab", "ca_deployment"],
    ["add a router for the lab network", "router_deployment"],
    ["create the identity server for the lab domain", "identity_deployment"],
    ["Install OpenShift 4.18 as a compact cluster named lab", "cluster_initial_deployment"],
  ])("'%s' is about a product, not a lab: %s", (sentence, dagId) => {
    expect(router.route(sentence).dag_id).toBe(dagId);
  });
});

describe("the lab's words", () => {
  test("'lab' is the object unless a preposition, a name word or a noun it qualifies says otherwise", () => {
    expect(asksForLab(words("create a whole new lab"))).toBe(true);
    expect(asksForLab(words("spin up the lab environment"))).toBe(true);
    expect(asksForLab(words("run lab_deployment"))).toBe(true);
    expect(asksForLab(words("a ca for the lab"))).toBe(false);
    expect(asksForLab(words("delete the lab network"))).toBe(false);
    expect(asksForLab(words("a cluster named lab"))).toBe(false);
  });

  test("products: named ones (the router always), the rest left out by 'without'; none named gives undefined", () => {
    expect(labProducts(words("a lab with kerberos and certificates"))).toEqual(["router", "identity", "ca"]);
    expect(labProducts(words("a lab without dns"))).toEqual(["router", "ca", "registry"]);
    expect(labProducts(words("a lab"))).toBeUndefined();
  });

  test("the lab's name: after 'called'/'named' or right after 'lab', never a domain or a preposition", () => {
    expect(labNameOf(words("a lab called dev1"))).toBe("dev1");
    expect(labNameOf(words("delete lab qa-2 now"))).toBe("qa-2");
    expect(labNameOf(words("a lab for lab.example.com"))).toBeUndefined();
    expect(labNameOf(words("a lab lab.example.com"))).toBeUndefined();
  });
});
