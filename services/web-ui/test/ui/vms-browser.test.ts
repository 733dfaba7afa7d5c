import type { Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { freePort } from "@svc/testing";
import { createHostPagesFixture, HOSTILE_VM, type HostPagesFixture } from "../host-pages-fixture";
import { launchChromium, signedInContext } from "./ui-stack";

// The VM page in Chromium: the host filter narrows the rows, a host link opens its row on /hosts,
// and a VM name with markup stays text (no element made, no script run).
let f: HostPagesFixture;
let server: Server;
let browser: Browser;
let page: Page;
let baseUrl = "";
const dialogs: string[] = [];

beforeAll(async () => {
  [f, browser] = await Promise.all([createHostPagesFixture("uivms"), launchChromium()]);
  const port = await freePort();
  server = await new Promise((resolve) => {
    const s = f.app.listen(port, "127.0.0.1", () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${port}`;
  page = await (await signedInContext(browser)).newPage();
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await f?.close();
});

test("/vms renders every VM; choosing a host narrows it; the host link opens that host's row; markup in a name stays text", async () => {
  await f.probeAlpha();
  await page.goto(`${baseUrl}/vms`);
  await expect(page.locator("tbody tr[data-vm]").count()).resolves.toBe(4);
  await expect(page.getByRole("cell", { name: HOSTILE_VM, exact: true }).count()).resolves.toBe(1);
  await expect(page.locator("main img").count()).resolves.toBe(0);

  await page.getByRole("combobox", { name: "Host", exact: true }).selectOption("beta");
  await page.getByRole("button", { name: "Show" }).click();
  await page.waitForURL(/\/vms\?host=beta$/);
  await expect(page.locator("tbody tr[data-vm]").count()).resolves.toBe(1);
  await expect(page.locator("h1").textContent()).resolves.toBe("VMs on beta");

  await page.locator('tr[data-vm="old01"]').getByRole("link", { name: "beta" }).click();
  await page.waitForURL(/\/hosts#host-beta$/);
  await expect(page.locator("#host-beta").isVisible()).resolves.toBe(true);
  expect(dialogs).toEqual([]);
});
