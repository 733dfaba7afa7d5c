import { HOSTILE_STRINGS } from "@svc/testing";
import { readCloudTarget } from "../src/params/cloud-target";
import { loadEvalCatalog } from "../src/eval/load-catalog";
import { createOfflineRouter, type OfflineRouter } from "../src/router/offline-router";

// Where a request puts its VMs is judged as typed: a hostile string after "on" or "in" never
// becomes a host, a region or a provider that is not exactly a name of the shape asked.
let router: OfflineRouter;
beforeAll(async () => {
  router = createOfflineRouter((await loadEvalCatalog()).entries);
});

const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const REGION = /^([a-z]{2}(-[a-z]+)+-\d{1,2}|fsn1|nbg1|hel1|ash|hil|sin)$/i;

test("no hostile string after on/in reaches the target other than as a valid host word or region, unfolded", () => {
  expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(60);
  const bad = HOSTILE_STRINGS.flatMap((s) =>
    [`create a vm called web01 on ${s}`, `create a vm called web01 on aws in ${s}`, `create a vm called web01 in region ${s}`].flatMap((intent) => {
      const t = readCloudTarget(intent);
      if (!t) return [];
      const wrong = [...t.hosts.filter((h) => !HOST.test(h) || !intent.includes(h)), ...(t.region && !REGION.test(t.region) ? [t.region] : [])];
      return wrong.length ? [{ intent, wrong }] : [];
    }),
  );
  expect(bad).toEqual([]);
});

test("a ready route's target never carries shell syntax, and shell syntax beside a cloud target is refused", () => {
  const shell = /[;&|`$<>\\\n\r]/;
  const leaked = HOSTILE_STRINGS.filter((s) => {
    const r = router.route(`create a vm called web01 on aws in eu-west-1 on ${s}`);
    return r.status === "ready" && JSON.stringify(r.target ?? {}).match(shell);
  });
  expect(leaked).toEqual([]);
  expect(router.route("create a vm called web01 on aws in eu-west-1; rm -rf /")).toMatchObject({ dag_id: null, refused: { kind: "unsafe" } });
});
