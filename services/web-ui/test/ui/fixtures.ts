import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";

/** A DAG with params of each kind and sleeps long enough to watch squares change. */
export const DEMO_DAG = `dag_id: demo_pipeline
description: Provision a demo VM and configure it
tags: [demo, vm]
owners: [ops]
params:
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]{0,62}$", default: web01, description: Name of the VM}
  cpus: {type: integer, minimum: 1, maximum: 64, default: 2, description: Virtual CPUs}
  size: {type: string, enum: [small, medium, large], default: small, description: Flavour of the VM}
  nets: {type: array, items: {type: string}, default: [default], description: libvirt networks to attach}
tasks:
  - task_id: validate
    operator: noop
  - task_id: create_vm
    operator: sleep
    args: {seconds: 1.5, print_every: 0.25}
    depends_on: [validate]
  - task_id: configure
    operator: sleep
    args: {seconds: 2.5, print_every: 0.25}
    depends_on: [create_vm]
  - task_id: report
    operator: noop
    depends_on: [configure]
`;

/** A DAG whose middle task fails with a known message (no retries). */
export const FAILING_DAG = `dag_id: broken_step
description: A step that fails on purpose
tags: [demo]
owners: [qa]
tasks:
  - task_id: prepare
    operator: noop
  - task_id: explode
    operator: fail
    retries: 0
    args: {message: "disk quota exceeded on /var"}
    depends_on: [prepare]
  - task_id: cleanup
    operator: noop
    depends_on: [explode]
`;

/** A task that writes many log lines. */
export const CHATTY_DAG = `dag_id: chatty
description: Writes a long log
tags: [logs]
schedule: "@daily"
tasks:
  - task_id: spew
    operator: shell
    args: {argv: [seq, "1", "60000"]}
`;

/** Where screenshots go: SVC_UI_SCREENSHOTS_DIR (docs/images when regenerating them) or a temporary folder. */
export const SHOTS_DIR = process.env.SVC_UI_SCREENSHOTS_DIR ?? path.join(os.tmpdir(), "svc-ui-screenshots");

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`), fullPage });
}
