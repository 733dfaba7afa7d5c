import request from "supertest";
import { AUTH, createWebFixture, type WebFixture } from "./helpers";

let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webui");
  await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "r:1+x", conf: { vm_name: "x" } }).expect(200);
  await f.db.updateTable("task_instance").set({ state: "success", try_number: 1 }).where("task_id", "=", "create").execute();
  await f.db.updateTable("task_instance").set({ state: "running", try_number: 1 }).where("task_id", "=", "wait").execute();
  await f.db.insertInto("task_log").values({ dag_id: "vm_deploy", run_id: "r:1+x", task_id: "wait", try_number: 1, stream: "stdout", line: "<b>tick</b>" }).execute();
  f.writeDag("broken.yaml", "dag_id: broken\ntasks: [\n");
  await f.sync();
});
afterAll(async () => {
  await f.close();
});

const page = (url: string) => request(f.app).get(url).auth(AUTH.adminUser!, AUTH.adminPassword!);

describe("server-rendered pages", () => {
  test("GET / redirects to /home", async () => {
    const res = await request(f.app).get("/").expect(302);
    expect(res.headers.location).toBe("/home");
  });

  test("/home lists DAGs with paused state and last run state, escapes text and counts import errors", async () => {
    const res = await page("/home").expect(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toContain('<a href="/dags/vm_deploy/grid">vm_deploy</a>');
    expect(res.text).toContain("paused");
    expect(res.text).toMatch(/title="queued">queued</);
    expect(res.text).toContain('<strong id="import-error-count">1</strong>');
    expect(res.text).toContain("r:1+x");
  });

  test("/dags/{dag_id}/grid shows runs × tasks with state colours and log links; unknown DAG is a 404 page", async () => {
    const res = await page("/dags/vm_deploy/grid").expect(200);
    expect(res.text).toContain('data-state="success"');
    expect(res.text).toContain('data-state="running"');
    expect(res.text).toContain('data-state="none"');
    expect(res.text).toContain("/dags/vm_deploy/runs/r%3A1%2Bx/tasks/wait/logs/1");
    expect(res.text.indexOf(">create<")).toBeLessThan(res.text.indexOf(">wait<"));
    const hello = await page("/dags/hello/grid").expect(200);
    expect(hello.text).toContain("Say &#60;hello&#62; &#38; wave");
    expect(hello.text).toContain("No DAG runs yet.");
    const missing = await page("/dags/nope/grid").expect(404);
    expect(missing.text).toContain("nope");
  });

  test("the log page shows the try's lines escaped and refreshes while the try runs", async () => {
    const res = await page("/dags/vm_deploy/runs/r%3A1%2Bx/tasks/wait/logs/1").expect(200);
    expect(res.text).toContain("&#60;b&#62;tick&#60;/b&#62;");
    expect(res.text).toContain('http-equiv="refresh"');
  });
});
