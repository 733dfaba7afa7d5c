import { readdirSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { silentLogger } from "@svc/logger";
import { freePort } from "@svc/testing";
import { createAssistantApp, createAssistantDeps, type AssistantResources } from "../../../assistant-api/src";
import { createOrchestrator, type Orchestrator } from "../../../orchestrator/src";
import { AUTH } from "../helpers";
import { screenshot } from "./fixtures";
import { launchChromium, signedInContext, startUiStack, type UiStack } from "./ui-stack";

const FIXTURES = path.join(__dirname, "..", "..", "..", "assistant-api", "test", "fixtures");
const fixtureDags = Object.fromEntries(readdirSync(path.join(FIXTURES, "dags")).map((f) => [f, readFileSync(path.join(FIXTURES, "dags", f), "utf8")]));

let stack: UiStack;
let assistant: AssistantResources;
let orchestrator: Orchestrator;
let server: Server;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const assistantPort = await freePort();
  [stack, browser] = await Promise.all([
    startUiStack("uiask", { dags: fixtureDags, assistantUrl: `http://127.0.0.1:${assistantPort}`, env: { SVC_DOCS_DIR: path.join(FIXTURES, "docs") } }),
    launchChromium(),
  ]);
  // The assistant checks the same credentials as the web UI and links back to it.
  const config = { ...stack.config, auth: AUTH, workflowUiUrl: stack.baseUrl };
  const logger = silentLogger();
  orchestrator = createOrchestrator({ db: stack.tdb.db, config, logger, sweepIntervalMs: 300, resumeAfterMs: 2000, heartbeatMs: 500 });
  assistant = createAssistantDeps({ config, logger, db: stack.tdb.db, intentWaitMs: 15_000 });
  const app = createAssistantApp(assistant);
  server = await new Promise((resolve) => {
    const s = app.listen(assistantPort, "127.0.0.1", () => resolve(s));
  });
  page = await (await signedInContext(browser)).newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await orchestrator?.close();
  await assistant?.close();
  await stack?.close();
});

describe("the ask box in Chromium", () => {
  test("a sentence shows the plan with its DAG and params; Approve runs it and the page follows the run in the grid", async () => {
    await page.goto(`${stack.baseUrl}/home`);
    const ask = page.getByRole("textbox", { name: /^Ask/ });
    await ask.fill("create a vm called web01");
    await ask.press("Enter");
    const plan = page.locator("#ask-plan");
    await plan.filter({ hasText: "vm_deployment" }).waitFor({ timeout: 20_000 });
    const params = page.getByRole("table", { name: "Resolved parameters" });
    await expect(params.textContent()).resolves.toContain("web01");
    await expect(page.locator("#ask-result h2 .state").textContent()).resolves.toBe("awaiting_approval");
    // The assistant's route status is shown as it reports it.
    await expect(plan.textContent()).resolves.toMatch(/Route\s*ready/);
    await screenshot(page, "ask-plan");
    expect((await stack.api.listDagRuns({ dag_id: "vm_deployment" })).total_entries).toBe(0);

    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL(/\/dags\/vm_deployment\/grid\?run_id=flow__/, { timeout: 20_000 });
    await page.locator('td.sq[title^="report success ·"]').waitFor({ timeout: 20_000 });
    await page.locator('td.sq[title^="create_vm success ·"]').waitFor();
    await expect(page.locator("#panel").textContent()).resolves.toContain("the assistant, for: “create a vm called web01”");
    const [run] = (await stack.api.listDagRuns({ dag_id: "vm_deployment" })).dag_runs;
    expect(run).toMatchObject({ state: "success", conf: { vm_name: "web01", action: "create" } });
    await screenshot(page, "ask-run");
  });

  test("a sentence missing a value shows the assistant's question and no Approve button; answering it leads to a plan to approve", async () => {
    await page.goto(`${stack.baseUrl}/home`);
    await page.getByRole("textbox", { name: /^Ask/ }).fill("delete the vm");
    await page.getByRole("button", { name: "Ask" }).click();
    const questions = page.getByRole("region", { name: "Questions" });
    await questions.waitFor({ timeout: 20_000 });
    await expect(questions.textContent()).resolves.toContain("vm_name");
    expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);
    await screenshot(page, "ask-question");

    await page.getByRole("textbox", { name: "vm_name" }).fill("old-box");
    await page.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("button", { name: "Approve" }).waitFor({ timeout: 20_000 });
    await expect(page.getByRole("table", { name: "Resolved parameters" }).textContent()).resolves.toContain("old-box");
    expect((await stack.api.listDagRuns({ dag_id: "vm_deployment", state: ["queued", "running"] })).total_entries).toBe(0);
  });
});
