import { HOSTILE_STRINGS } from "@svc/testing";
import { loadEvalCatalog } from "../src/eval/load-catalog";
import { createOfflineRouter, type OfflineRouter } from "../src/router/offline-router";

/**
 * Names the user gives are judged as typed: a hostile string given as a VM's name is refused or
 * asked again, never rewritten into a name that passes (no folding, trimming or cutting), and a
 * name that is valid as typed is kept exactly.
 */
let router: OfflineRouter;
beforeAll(async () => {
  router = createOfflineRouter((await loadEvalCatalog()).entries);
});

// Blank strings name nothing: the router cannot tell them from no name at all.
const NAMES = HOSTILE_STRINGS.filter((s) => s.trim() !== "");

test("every non-blank hostile string given as a VM's name is refused or asked again, or kept exactly as typed", () => {
  expect(NAMES.length).toBeGreaterThanOrEqual(60);
  const rewritten = NAMES.flatMap((name) => {
    const r = router.route(`create a vm called "${name}"`);
    const given = r.params.vm_name;
    if (r.status !== "ready") return [];
    // Ready only with the name exactly as typed (then it also passes the workflow's name rule), or with no name taken from it.
    return given === undefined || given === name ? [] : [{ name, given, status: r.status }];
  });
  expect(rewritten).toEqual([]);
});

test("no hostile string given as a name reaches a ready route with shell syntax in any value", () => {
  const shell = /[;&|`$<>\\\n\r]/;
  const leaked = NAMES.filter((name) => {
    const r = router.route(`please delete the vm named "${name}"`);
    return r.status === "ready" && Object.values(r.params).some((v) => typeof v === "string" && shell.test(v));
  });
  expect(leaked).toEqual([]);
});
