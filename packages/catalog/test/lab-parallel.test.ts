import type { DagDefinition } from "@svc/dags";
import { loadCatalogue } from "./load-catalogue";
import { simulateRun } from "./simulate-run";

// lab_deployment through the engine's scheduling core (no database, no VM): what runs side by
// side, and what a failure in one branch leaves of the other.
let lab: DagDefinition;
beforeAll(async () => {
  lab = (await loadCatalogue()).lab_deployment!;
});

test("create: the router first, then identity and the CA queued together, and the registry once the CA is done", () => {
  const r = simulateRun(lab, { lab_name: "dev1", domain: "dev1.example.org" });
  expect(r.state).toBe("success");
  expect(r.rounds).toEqual([["place_lab"], ["router"], ["identity", "ca"], ["registry"], ["report"]]);
});

test("a failed identity server leaves the CA and the registry to finish: both succeed, the run fails", () => {
  const r = simulateRun(lab, { lab_name: "dev1", domain: "dev1.example.org" }, ["identity"]);
  expect(r.state).toBe("failed");
  expect(r.states).toMatchObject({ router: "success", identity: "failed", ca: "success", registry: "success", report: "upstream_failed" });
});

test("a failed CA skips only the registry that needs it: the identity server still succeeds, the run fails", () => {
  const r = simulateRun(lab, { lab_name: "dev1", domain: "dev1.example.org" }, ["ca"]);
  expect(r.state).toBe("failed");
  expect(r.states).toMatchObject({ router: "success", identity: "success", ca: "failed", registry: "upstream_failed", report: "upstream_failed" });
});

test("a failed router stops everything after it", () => {
  const r = simulateRun(lab, { lab_name: "dev1", domain: "dev1.example.org" }, ["router"]);
  expect(r.state).toBe("failed");
  expect(r.states).toMatchObject({ identity: "upstream_failed", ca: "upstream_failed", registry: "upstream_failed" });
});

test("a lab without an identity server still gets its CA and registry after the router", () => {
  const r = simulateRun(lab, { lab_name: "dev1", domain: "dev1.example.org", products: ["router", "ca", "registry"] });
  expect(r.state).toBe("success");
  expect(r.states).toMatchObject({ identity: "skipped", ca: "success", registry: "success" });
});

test("delete: without with_members no member is deleted (delete_members skipped) and the products go in reverse order after check_members", () => {
  const r = simulateRun(lab, { action: "delete", lab_name: "dev1", domain: "dev1.example.org" });
  expect(r.state).toBe("success");
  expect(r.rounds).toEqual([["check_members"], ["delete_registry"], ["delete_ca"], ["delete_identity"], ["delete_router"], ["report"]]);
  expect(r.states.delete_members).toBe("skipped");
});

test("delete with_members: the members are deleted after check_members and before any product", () => {
  const r = simulateRun(lab, { action: "delete", lab_name: "dev1", domain: "dev1.example.org", with_members: true });
  expect(r.state).toBe("success");
  expect(r.rounds).toEqual([["check_members"], ["delete_members"], ["delete_registry"], ["delete_ca"], ["delete_identity"], ["delete_router"], ["report"]]);
});

test.each([["check_members"], ["delete_members"]])("delete with_members: a failed %s deletes no product", (failed) => {
  const r = simulateRun(lab, { action: "delete", lab_name: "dev1", domain: "dev1.example.org", with_members: true }, [failed]);
  expect(r.state).toBe("failed");
  expect(r.ran).toEqual(failed === "check_members" ? ["check_members"] : ["check_members", "delete_members"]);
  expect(r.states).toMatchObject({ delete_registry: "upstream_failed", delete_ca: "upstream_failed", delete_identity: "upstream_failed", delete_router: "upstream_failed" });
});
