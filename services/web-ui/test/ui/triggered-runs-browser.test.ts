import type { Browser, Page } from "playwright-core";
import { waitFor } from "@svc/testing";
import { launchChromium, signedInContext, startUiStack, type UiStack } from "./ui-stack";

// A parent whose task triggers a two-step child and waits (as a lab waits for its products).
const CHILD = `dag_id: child_steps
description: Two steps
tasks:
  - {task_id: one, operator: sleep, args: {seconds: 1}}
  - {task_id: two, operator: sleep, args: {seconds: 1}, depends_on: [one]}
`;
const PARENT = `dag_id: parent_flow
description: Waits for child_steps
tasks:
  - {task_id: product, operator: trigger_dag_run, args: {trigger_dag_id: child_steps, poke_interval: 1}}
  - {task_id: report, operator: noop, depends_on: [product]}
`;

let stack: UiStack;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  [stack, browser] = await Promise.all([startUiStack("uitrigger", { dags: { "child.yaml": CHILD, "parent.yaml": PARENT } }), launchChromium()]);
  page = await (await signedInContext(browser)).newPage();
  // The child runs unpaused: a paused child fails its parent's trigger task (it keeps the caller's rights).
  await Promise.all([stack.api.setPaused("parent_flow", false), stack.api.setPaused("child_steps", false)]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test("in Chromium, the parent's waiting task shows its child run, whose link opens the child's grid, and the child run links back to the parent's task", async () => {
  const run = await stack.api.triggerDagRun("parent_flow", {});
  await page.goto(`${stack.baseUrl}/dags/parent_flow/grid?run_id=${encodeURIComponent(run.dag_run_id)}`);
  // While the child runs, the parent's task is waiting (up_for_reschedule) or already done.
  const square = page.locator('td.sq[title^="product "]');
  await square.waitFor({ timeout: 20_000 });
  await waitFor(async () => ((await square.getAttribute("title")) ?? "").includes("child_steps") || undefined, { timeoutMs: 20_000, what: "the square naming its child run" });
  await square.click();
  const link = page.locator("#triggered-runs a");
  await link.waitFor({ timeout: 20_000 });
  const childRunId = (await stack.tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "child_steps").executeTakeFirstOrThrow()).run_id;
  await expect(link.textContent()).resolves.toBe(`child_steps / ${childRunId}`);
  await page.locator('td.sq[title^="report success ·"]').waitFor({ timeout: 30_000 });

  await link.click();
  await page.waitForURL(/\/dags\/child_steps\/grid\?run_id=/);
  await page.locator('td.sq[title^="two success ·"]').waitFor({ timeout: 20_000 });
  await expect(page.locator("#panel").textContent()).resolves.toMatch(new RegExp(`Triggered by.*task parent_flow / ${run.dag_run_id.replace(/[.+]/g, "\\$&")} / product`));
  await page.locator("#panel a", { hasText: "parent_flow" }).click();
  await page.waitForURL(/\/dags\/parent_flow\/grid\?run_id=.*task_id=product/);
  await page.locator("#triggered-runs a").waitFor({ timeout: 20_000 });
}, 120_000);
