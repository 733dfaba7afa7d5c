import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { createIntentParser } from "../router/parse-intent";
import { extractActionVerb, extractAllValues, extractName, paramsForDag } from "./extract-params";

const parse = createIntentParser(CATALOG_FIXTURE);

describe("extractName", () => {
  test.each([
    ["create a vm called web01", "web01"],
    ["a new virtual machine named db-1", "db-1"],
    ["delete vm test3", "test3"],
    ["vm web01 please", "web01"],
    ["router vm please, name it rtr1", "rtr1"],
    ["creat a virtal machine caled test-vm", "test-vm"],
  ])("%s → %s", (text, name) => {
    expect(extractName(parse(text))?.value).toBe(name);
  });

  test("keeps the name as typed even when typo repair would change it", () => {
    expect(extractName(parse("create a vm named routr"))?.value).toBe("routr");
  });

  test("function words and known keywords after a bare noun are never names", () => {
    for (const text of ["set up a gateway vm for the lab", "spin up an ubuntu vm with 2 cpus", "are my vms ok", "deploy a vm from rhel9"]) {
      expect(extractName(parse(text))).toBeUndefined();
    }
  });

  test("a name after 'cluster named' names the cluster", () => {
    expect(extractName(parse("deploy a three node openshift cluster named prod"))).toEqual({ value: "prod", of: "cluster" });
  });

  test("quantifiers are never names", () => {
    expect(extractName(parse("delete vm all"))).toBeUndefined();
    expect(extractName(parse("remove the vm called every"))).toBeUndefined();
  });

  test("names that fail the name pattern are not taken", () => {
    expect(extractName(parse("create a vm called 9lives"))).toBeUndefined();
  });
});

describe("action", () => {
  test("delete synonyms map to delete and create synonyms to create; the first verb wins", () => {
    for (const t of ["tear down the router", "get rid of vm x", "decommission idm", "remove the ca vm", "destroy it"]) expect(extractActionVerb(t)).toBe("delete");
    for (const t of ["spin up a vm", "stand up freeipa", "provision a box", "install harbor"]) expect(extractActionVerb(t)).toBe("create");
    expect(extractActionVerb("run a health check")).toBeUndefined();
  });

  test("create is emitted only with a named VM; delete always", () => {
    expect(extractAllValues(parse("create a vm called web01")).action).toBe("create");
    expect(extractAllValues(parse("set up a container registry")).action).toBeUndefined();
    expect(extractAllValues(parse("destroy the router")).action).toBe("delete");
  });
});

describe("paramsForDag", () => {
  test("keeps only the params the DAG declares", () => {
    const values = extractAllValues(parse("deploy openshift 4.19 single node for lab.example.com with 4 cpus"));
    expect(paramsForDag(values, Object.keys(CATALOG_FIXTURE.find((e) => e.dag_id === "cluster_initial_deployment")!.params))).toEqual({
      version: "4.19",
      deployment_size: "sno",
      domain: "lab.example.com",
    });
  });
});
