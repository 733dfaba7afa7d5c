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
