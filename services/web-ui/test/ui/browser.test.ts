import type { Browser, BrowserContext, Page } from "playwright-core";
import { waitFor } from "@svc/testing";
import { CHATTY_DAG, DEMO_DAG, FAILING_DAG, screenshot } from "./fixtures";
import { launchChromium, signedInContext, startUiStack, type UiStack } from "./ui-stack";

let stack: UiStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The run created through the form. */
let formRunId = "";

beforeAll(async () => {
  [stack, browser] = await Promise.all([startUiStack("uibrowser", { dags: { "demo.yaml": DEMO_DAG, "failing.yaml": FAILING_DAG, "chatty.yaml": CHATTY_DAG } }), launchChromium()]);
  context = await signedInContext(browser);
  page = await context.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const url = (p: string) => `${stack.baseUrl}${p}`;
/** The square of one task in one run's column of the grid on the page. */
async function square(runId: string, taskId: string) {
  const ids = await Promise.all((await page.locator("thead .runbar").all()).map((b) => b.getAttribute("data-run")));
  return page.locator(`tr[data-task="${taskId}"] td.sq`).nth(ids.indexOf(runId));
}
const runsOf = async (dagId: string) => (await stack.api.listDagRuns({ dag_id: dagId })).dag_runs;

describe("the workflow UI in Chromium", () => {
  test("each DAG has a pause switch; switching demo_pipeline on unpauses it in the API and survives a reload; text and tag filters narrow the list", async () => {
    await page.goto(url("/home"));
    const sw = page.getByRole("switch", { name: /demo_pipeline/ });
    await expect(sw.getAttribute("aria-checked")).resolves.toBe("false");
    expect(await page.getByRole("switch").count()).toBe(3);
    await sw.click();
    await waitFor(async () => (await stack.api.getDag("demo_pipeline")).is_paused === false, { what: "API says demo_pipeline is active" });
    await page.reload();
    await expect(page.getByRole("switch", { name: /demo_pipeline/ }).getAttribute("aria-checked")).resolves.toBe("true");
    expect((await stack.api.getDag("broken_step")).is_paused).toBe(true);

    await page.getByRole("searchbox", { name: /^Filter DAGs/ }).fill("long log");
    await expect(page.locator("tr[data-dag]:visible").count()).resolves.toBe(1);
    await page.getByRole("combobox", { name: "Filter by tag" }).selectOption("demo");
    await expect(page.locator("tr[data-dag]:visible").count()).resolves.toBe(0);
    await page.getByRole("searchbox", { name: /^Filter DAGs/ }).fill("");
    await expect(page.locator("tr[data-dag]:visible").count()).resolves.toBe(2);
  });

  test("the trigger form refuses a bad value inline and creates no run", async () => {
    await page.goto(url("/home"));
    await page.getByRole("link", { name: "Trigger demo_pipeline" }).click();
    await page.waitForURL(/\/dags\/demo_pipeline\/trigger$/);
    await expect(page.getByLabel("size").evaluate((e) => e.tagName)).resolves.toBe("SELECT");
    await expect(page.getByLabel("cpus").inputValue()).resolves.toBe("2");
    await page.getByLabel("cpus").fill("0");
    await page.getByLabel("vm_name").fill("Bad Name!");
    await expect(page.locator("#param-cpus-err").textContent()).resolves.toBe("cpus: must be >= 1");
    await expect(page.locator("#param-vm_name-err").textContent()).resolves.toMatch(/^vm_name: must match pattern/);
    await page.getByRole("button", { name: "Trigger" }).click();
    await expect(page.locator("#form-status").textContent()).resolves.toMatch(/nothing was triggered/);
    await expect(page.getByLabel("cpus").getAttribute("aria-invalid")).resolves.toBe("true");
    expect(await runsOf("demo_pipeline")).toHaveLength(0);
  });

  test("triggering with a changed param runs it; the grid turns squares green live without a reload and a running task's log is followed", async () => {
    await page.goto(url("/dags/demo_pipeline/trigger"));
    await page.getByLabel("cpus").fill("4");
    await page.getByLabel("size").selectOption("large");
    await expect(
      page
        .locator("#conf-json")
        .inputValue()
        .then((v) => JSON.parse(v)),
    ).resolves.toEqual({ vm_name: "web01", cpus: 4, size: "large", nets: ["default"] });
    await screenshot(page, "trigger-form");
    await page.getByRole("button", { name: "Trigger" }).click();
    await page.waitForURL(/\/dags\/demo_pipeline\/grid\?run_id=/);
    const [run] = await runsOf("demo_pipeline");
    expect(run?.conf).toMatchObject({ cpus: 4, size: "large", vm_name: "web01" });
    formRunId = run!.dag_run_id;
    expect(page.url()).toContain(encodeURIComponent(formRunId));

    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    // A square's accessible name is its title, which starts with the task and its state.
    await page.getByRole("gridcell", { name: /^create_vm running · try 1/ }).waitFor({ timeout: 20_000 });
    // Follow mode: the log of a running task keeps growing until the try ends.
    await page.locator('td.sq[title^="configure running ·"]').click({ timeout: 20_000 });
    await page.getByText(/ · running$/).waitFor();
    await page.locator("#log").filter({ hasText: "task succeeded" }).waitFor({ timeout: 20_000 });
    await expect(page.locator("#log").textContent()).resolves.toContain("tick 10");
    await page.locator('td.sq[title^="report success ·"]').waitFor({ timeout: 20_000 });
    await page.locator('.runbar[aria-label$=" success"]').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);
    const title = await page.locator('td.sq[title^="create_vm success ·"]').getAttribute("title");
    expect(title).toMatch(/^create_vm success · try 1 · started .* · ended .* · \d+\.\d s$/);
    await page.locator('td.sq[title^="create_vm success ·"]').click();
    await page.locator("#log").filter({ hasText: "tick 6" }).waitFor();
  });

  test("a failed task's square opens its log with the failure message; arrow keys and Enter open another square", async () => {
    await stack.api.setPaused("broken_step", false);
    const run = await stack.api.triggerDagRun("broken_step", {});
    // More runs for the grid to show by the end of the suite (they run meanwhile).
    for (const n of [1, 2]) await stack.api.triggerDagRun("demo_pipeline", { runId: `nightly_${n}`, conf: { vm_name: `web0${n + 1}` }, note: "nightly rebuild" });
    await page.goto(url(`/dags/broken_step/grid`));
    const failed = page.locator('td.sq[title^="explode failed ·"]');
    await failed.waitFor({ timeout: 20_000 });
    await page.locator('td.sq[title^="cleanup upstream_failed ·"]').waitFor({ timeout: 10_000 });
    await failed.click();
    await page.locator("#log").filter({ hasText: "disk quota exceeded on /var" }).waitFor();
    await expect(page.locator("#panel h2").first().textContent()).resolves.toMatch(/explode\s*failed/);
    await screenshot(page, "grid-failed-log");
    // Keyboard: arrows move between squares, Enter opens one.
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    await page.locator("#panel h2").filter({ hasText: "prepare" }).waitFor();
    expect((await stack.api.getDagRun("broken_step", run.dag_run_id)).state).toBe("failed");
  });

  test("a square keeps the keyboard focus when a new run redraws the grid, and the arrow keys go on from it", async () => {
    await page.goto(url(`/dags/broken_step/grid`));
    const failed = page.locator('td.sq[title^="explode failed ·"]').first();
    await failed.waitFor();
    await failed.click();
    const title = await failed.getAttribute("title");
    // The focused element's title, or its tag when it has none (BODY once the focus is lost).
    type Focus = { document: { activeElement: { tagName: string; getAttribute(name: string): string | null } | null } };
    const focusedTitle = () =>
      page.evaluate(() => {
        const el = (globalThis as unknown as Focus).document.activeElement;
        return el?.getAttribute("title") ?? el?.tagName;
      });
    await expect(focusedTitle()).resolves.toBe(title);
    const columns = await page.locator("thead .runbar").count();
    // A new run: the page redraws the whole table (its columns changed).
    await stack.api.triggerDagRun("broken_step", {});
    await waitFor(async () => (await page.locator("thead .runbar").count()) === columns + 1, { what: "the grid redrawn with the new run" });
    await expect(focusedTitle()).resolves.toBe(title);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    await page.locator("#panel h2").filter({ hasText: "prepare" }).waitFor();
  });

  test("run details mark a run, and clearing a task previews it and what follows before clearing", async () => {
    const run = await stack.api.getDagRun("demo_pipeline", formRunId);
    await page.goto(url(`/dags/demo_pipeline/grid?run_id=${encodeURIComponent(run.dag_run_id)}`));
    await expect(page.locator("#panel").textContent()).resolves.toMatch(/Triggered by.*an operator/);
    await page.getByRole("button", { name: "Mark failed" }).click();
    await waitFor(async () => (await stack.api.getDagRun("demo_pipeline", run.dag_run_id)).state === "failed", { what: "run marked failed" });

    // This run's square: the nightly runs of an earlier test may have finished theirs by now.
    await (await square(run.dag_run_id, "configure")).click();
    await page.getByRole("button", { name: "Clear task and downstream…" }).click();
    const preview = page.locator("#clear-preview li");
    await preview.first().waitFor();
    expect((await preview.allTextContents()).map((t) => t.split(" · ")[0])).toEqual(["configure", "report"]);
    // The preview changed nothing.
    expect((await stack.api.getTaskInstance("demo_pipeline", run.dag_run_id, "configure")).state).toBe("success");
    await page.getByRole("button", { name: /Confirm clear \(2\)/ }).click();
    await waitFor(
      async () =>
        (await stack.api.getTaskInstance("demo_pipeline", run.dag_run_id, "report")).try_number >= 1 &&
        (await stack.api.getDagRun("demo_pipeline", run.dag_run_id)).state !== "failed",
      { what: "run cleared" },
    );
    const report = await square(run.dag_run_id, "report");
    await waitFor(async () => (await report.getAttribute("title"))?.startsWith("report success ·"), { timeoutMs: 20_000, what: "cleared report square green again" });
  });

  test("a long log opens at its end with earlier lines on demand", async () => {
    await stack.api.setPaused("chatty", false);
    await stack.api.triggerDagRun("chatty", { runId: "long" });
    await waitFor(async () => (await stack.api.getDagRun("chatty", "long")).state === "success", { timeoutMs: 60_000, what: "chatty run done" });
    await page.goto(url("/dags/chatty/grid"));
    await page.locator('td.sq[title^="spew success ·"]').click();
    const log = page.locator("#log");
    await log.filter({ hasText: "60000" }).waitFor();
    const lines = async () => (await log.textContent())!.trimEnd().split("\n");
    expect((await lines()).length).toBe(1000);
    const first = await lines();
    // The try's own last lines (after seq's output) are part of the tail too.
    const seqEnd = first.findIndex((l) => / 60000$/.test(l));
    expect(first[0]).toMatch(new RegExp(` ${60000 - seqEnd}$`));
    expect(seqEnd).toBeGreaterThan(990);
    await page.getByRole("button", { name: "Load earlier lines" }).click();
    await waitFor(async () => (await lines()).length === 10_000, { what: "10,000 lines shown" });
    expect((await lines()).at(-1)).toBe(first.at(-1));
  });

  test("a broken DAG file dropped in the folder shows the import-errors banner with file and message", async () => {
    stack.writeDag("oops.yaml", "dag_id: oops\ntasks: [\n");
    await waitFor(async () => (await stack.api.listImportErrors({})).total_entries > 0, { timeoutMs: 20_000, what: "import error recorded" });
    await page.goto(url("/home"));
    const banner = page.getByRole("alert", { name: "Import errors" });
    await expect(banner.textContent()).resolves.toContain("oops.yaml");
    const stack_trace = (await stack.api.listImportErrors({})).import_errors[0]!.stack_trace;
    await expect(banner.textContent()).resolves.toContain(stack_trace.split("\n")[0]!.trim());
    await screenshot(page, "dag-list");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "dag-list-phone");
    await page.setViewportSize({ width: 1360, height: 860 });
    await page.goto(url("/dags/demo_pipeline/graph"));
    await expect(page.getByRole("img", { name: "Task dependencies of demo_pipeline" }).textContent()).resolves.toContain("create_vm");
    await screenshot(page, "graph");
    await page.goto(url("/dags/demo_pipeline/grid"));
    await page.locator('td.sq[title^="report success ·"]').nth(2).waitFor({ timeout: 20_000 });
    await page.locator('tr[data-task="create_vm"] td.sq').last().click();
    await page.locator("#log").filter({ hasText: "task succeeded" }).waitFor();
    await screenshot(page, "grid");
  });
});
