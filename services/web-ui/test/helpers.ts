import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import type { Db } from "@svc/db";
import { createEngineApi, syncDagFolder, type EngineApi } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, recordingNotifier, type RecordingNotifier, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../src/app";
import type { AuthSettings } from "@svc/http";

export const AUTH: AuthSettings = { adminUser: "admin", adminPassword: "s3cret-pass", apiToken: "tok-123456" };
export const BEARER = `Bearer ${AUTH.apiToken}`;

export const VM_DAG = `dag_id: vm_deploy
description: Deploy a VM
tags: [vm, infra]
owners: [ops]
params:
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]*$"}
  cpus: {type: integer, default: 2, minimum: 1}
tasks:
  - task_id: create
    operator: noop
  - task_id: wait
    operator: noop
    depends_on: [create]
    retries: 1
  - task_id: report
    operator: noop
    depends_on: [wait]
`;

export const HELLO_DAG = `dag_id: hello
description: Say <hello> & wave
tags: [demo]
schedule: "@daily"
tasks:
  - task_id: say
    operator: noop
`;

export interface WebFixture {
  db: Db;
  tdb: TestDb;
  dagsDir: string;
  api: EngineApi;
  app: ReturnType<typeof createWebUiApp>;
  notifier: RecordingNotifier;
  writeDag(file: string, yaml: string): void;
  sync(): Promise<unknown>;
  get(url: string): request.Test;
  post(url: string, body?: object): request.Test;
  patch(url: string, body?: object): request.Test;
  del(url: string): request.Test;
  close(): Promise<void>;
}

/** Database, DAG folder (loaded by the real processor), engine API and app, with credentials configured. */
export async function createWebFixture(label: string, opts: { auth?: AuthSettings; dags?: Record<string, string> } = {}): Promise<WebFixture> {
  const tdb = await createTestDb(label);
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), `svc-web-${label}-`));
  const notifier = recordingNotifier();
  const catalog = defaultOperators();
  const api = createEngineApi({ db: tdb.db, notifier, dagsDir, catalog, maxPageLimit: 100 });
  const app = createWebUiApp({ api, auth: opts.auth ?? AUTH });
  const writeDag = (file: string, yaml: string) => writeFileSync(path.join(dagsDir, file), yaml);
  for (const [file, yaml] of Object.entries(opts.dags ?? { "vm_deploy.yaml": VM_DAG, "hello.yaml": HELLO_DAG })) writeDag(file, yaml);
  const sync = () => syncDagFolder({ db: tdb.db, dagsDir, catalog });
  await sync();
  const withAuth = (t: request.Test) => t.set("Authorization", BEARER);
  return {
    db: tdb.db,
    tdb,
    dagsDir,
    api,
    app,
    notifier,
    writeDag,
    sync,
    get: (url) => withAuth(request(app).get(url)),
    post: (url, body) => withAuth(request(app).post(url)).send(body ?? {}),
    patch: (url, body) => withAuth(request(app).patch(url)).send(body ?? {}),
    del: (url) => withAuth(request(app).delete(url)),
    async close() {
      await tdb.drop();
      rmSync(dagsDir, { recursive: true, force: true });
    },
  };
}

/** Every error answer is RFC 7807 problem JSON. */
export function expectProblem(res: request.Response, status: number, detail?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  if (detail) expect(body.detail).toMatch(detail);
}
