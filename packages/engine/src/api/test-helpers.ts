import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "@svc/db";
import { builtinOperators } from "../../test/fixtures/operators";
import type { OperatorRegistry } from "../ports";
import { createTestDb, recordingNotifier, type RecordingNotifier, type TestDb } from "@svc/testing";
import { syncDagFolder } from "../processor";
import { createEngineApi, type EngineApi } from "./engine-api";

/** Two DAGs used across the API tests: one with params and a chain of tasks, one scheduled with none. */
export const VM_DAG = `dag_id: vm_deploy
description: Deploy a VM
tags: [vm, infra]
owners: [ops]
params:
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]*$", description: VM name}
  cpus: {type: integer, default: 2, minimum: 1}
tasks:
  - task_id: create
    operator: noop
  - task_id: wait
    operator: noop
    depends_on: [create]
    retries: 2
  - task_id: configure
    operator: noop
    depends_on: [wait]
  - task_id: report
    operator: noop
    depends_on: [configure]
`;

export const HELLO_DAG = `dag_id: hello
description: Say hello every morning
tags: [demo]
schedule: "0 6 * * *"
tasks:
  - task_id: say
    operator: noop
    args: {message: hello}
`;

export interface ApiFixture {
  db: Db;
  tdb: TestDb;
  dagsDir: string;
  api: EngineApi;
  notifier: RecordingNotifier;
  writeDag(file: string, yaml: string): void;
  sync(): Promise<unknown>;
  close(): Promise<void>;
}

/** Own database and DAG folder for one test file; DAGs loaded through the real DAG processor. */
export async function createApiFixture(label: string, opts: { maxPageLimit?: number; dags?: Record<string, string>; catalog?: OperatorRegistry } = {}): Promise<ApiFixture> {
  const tdb = await createTestDb(label);
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), `svc-api-${label}-`));
  const notifier = recordingNotifier();
  const catalog = opts.catalog ?? builtinOperators();
  const api = createEngineApi({ db: tdb.db, notifier, dagsDir, catalog, maxPageLimit: opts.maxPageLimit });
  const f: ApiFixture = {
    db: tdb.db,
    tdb,
    dagsDir,
    api,
    notifier,
    writeDag: (file, yaml) => writeFileSync(path.join(dagsDir, file), yaml),
    sync: () => syncDagFolder({ db: tdb.db, dagsDir, catalog }),
    async close() {
      await tdb.drop();
      rmSync(dagsDir, { recursive: true, force: true });
    },
  };
  for (const [file, yaml] of Object.entries(opts.dags ?? { "vm_deploy.yaml": VM_DAG, "hello.yaml": HELLO_DAG })) f.writeDag(file, yaml);
  await f.sync();
  return f;
}

/** Set task instance fields directly, as the scheduler or a worker would. */
export async function setTi(db: Db, dagId: string, runId: string, taskId: string, patch: Record<string, unknown>): Promise<void> {
  await db.updateTable("task_instance").set(patch).where("dag_id", "=", dagId).where("run_id", "=", runId).where("task_id", "=", taskId).execute();
}

/** Task instances of a run by task id. */
export async function tisOf(db: Db, dagId: string, runId: string) {
  const rows = await db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
  return Object.fromEntries(rows.map((r) => [r.task_id, r]));
}
