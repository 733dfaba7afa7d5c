import type { Browser, Page } from "playwright-core";
import { BEARER } from "../helpers";
import { launchChromium, signedInContext, startUiStack, type UiStack } from "./ui-stack";

/** A scheduled DAG (so it has a next run while active) whose one task lasts long enough to see it running. */
const LIVE_DAG = `dag_id: live_list
description: Watched on the DAG list
tags: [live]
schedule: "@daily"
tasks:
  - task_id: work
    operator: sleep
    args: {seconds: 1.5}
`;

let stack: UiStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startUiStack("uihomelive", { dags: { "live.yaml": LIVE_DAG } }), launchChromium()]);
  page = await (await signedInContext(browser)).newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A REST call as another client would make it (not through the page). */
async function rest(method: string, path: string, body: object): Promise<void> {
  const res = await fetch(`${stack.baseUrl}/api/v1${path}`, { method, headers: { Authorization: BEARER, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

test("the DAG list follows another client's unpause, trigger and pause live: switch, next run and the new run's dot turning green, with no reload", async () => {
  await page.goto(`${stack.baseUrl}/home`);
  await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
  const row = page.locator('tr[data-dag="live_list"]');
  const sw = page.getByRole("switch", { name: /live_list/ });
  const nextRun = row.locator("td.next-run");
  await expect(sw.getAttribute("aria-checked")).resolves.toBe("false");
  await expect(nextRun.textContent()).resolves.toBe("");
  await expect(row.locator("td.runs").textContent()).resolves.toBe("no runs");

  await rest("PATCH", "/dags/live_list", { is_paused: false });
  await page.locator('tr[data-dag="live_list"] [role="switch"][aria-checked="true"]').waitFor({ timeout: 5000 });
  await expect(nextRun.textContent()).resolves.toMatch(/^\d{4}-\d\d-\d\d 00:00$/);

  await rest("POST", "/dags/live_list/dagRuns", { dag_run_id: "watched" });
  // The newest dot is the last one; it shows up while the run is still going and then turns green.
  await row.locator('a.dot[aria-label="run watched running"]').waitFor({ timeout: 10_000 });
  await expect(row.locator("a.dot").last().getAttribute("aria-label")).resolves.toBe("run watched running");
  await row.locator('a.dot.s-success[aria-label="run watched success"]').waitFor({ timeout: 10_000 });
  await expect(row.locator("a.dot").last().getAttribute("href")).resolves.toBe("/dags/live_list/grid?run_id=watched");

  await rest("PATCH", "/dags/live_list", { is_paused: true });
  await page.locator('tr[data-dag="live_list"] [role="switch"][aria-checked="false"]').waitFor({ timeout: 5000 });
  await expect(nextRun.textContent()).resolves.toBe("");
  expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);
}, 30_000);
