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

  test("/home lists DAGs with pause switches, trigger links and recent runs, escapes text and shows import errors", async () => {
    const res = await page("/home").expect(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toContain('<a href="/dags/vm_deploy/grid"><strong>vm_deploy</strong></a>');
    expect(res.text).toContain('role="switch" aria-checked="false" aria-label="Active: vm_deploy"');
    expect(res.text).toContain('aria-label="Trigger vm_deploy"');
    expect(res.text).toContain('aria-label="run r:1+x queued"');
    expect(res.text).toContain("Say &#60;hello&#62; &#38; wave");
    expect(res.text).toContain('<strong id="import-error-count">1</strong>');
    expect(res.text).toMatch(/role="alert" aria-label="Import errors">[\s\S]*broken\.yaml/);
  });

  test("pages and the grid stream need the API's credentials", async () => {
    for (const url of ["/home", "/dags/vm_deploy/grid", "/dags/vm_deploy/trigger", "/dags/vm_deploy/grid/events", "/dags/vm_deploy/grid/table"]) {
      await request(f.app).get(url).expect(401);
    }
  });

  test("static assets are served from /static without credentials; unknown ones are 404", async () => {
    const css = await request(f.app).get("/static/ui.css").expect(200);
    expect(css.headers["content-type"]).toMatch(/text\/css/);
    await request(f.app).get("/static/grid.js").expect(200);
    await request(f.app).get("/static/nope.js").expect(404);
  });

  test("/dags/{dag_id}/grid shows runs × tasks as squares titled (and so named) '<task_id> <state> · try n …' in dependency order; unknown DAG is a 404 page", async () => {
    const res = await page("/dags/vm_deploy/grid").expect(200);
    expect(res.text).toMatch(/<tr data-task="create">.*<td class="sq s-success" title="create success · try 1"><\/td><\/tr>/);
    expect(res.text).toContain('title="wait running · try 1');
    expect(res.text).toContain('title="report none · try 1"');
    expect(res.text.indexOf(">create<")).toBeLessThan(res.text.indexOf(">wait<"));
    const table = await page("/dags/vm_deploy/grid/table").expect(200);
    expect(table.body.runs.map((r: { dag_run_id: string }) => r.dag_run_id)).toEqual(["r:1+x"]);
    expect(table.body.html).toContain('title="wait running · try 1');
    const hello = await page("/dags/hello/grid").expect(200);
    expect(hello.text).toContain("Say &#60;hello&#62; &#38; wave");
    expect(hello.text).toContain("No DAG runs yet.");
    const missing = await page("/dags/nope/grid").expect(404);
    expect(missing.text).toContain("nope");
  });

  test("the log page shows the try's last lines escaped and loads the following viewer", async () => {
    const res = await page("/dags/vm_deploy/runs/r%3A1%2Bx/tasks/wait/logs/1").expect(200);
    expect(res.text).toContain("&#60;b&#62;tick&#60;/b&#62;");
    expect(res.text).toContain('<script src="/static/log-view.js" defer>');
  });

  test("the trigger page has one labelled field per param, defaults filled, and the params schema for inline checks", async () => {
    const res = await page("/dags/vm_deploy/trigger").expect(200);
    expect(res.text).toContain('<label for="param-vm_name">vm_name</label>');
    expect(res.text).toMatch(/id="param-cpus" name="cpus"[^>]*value="2"/);
    expect(res.text).toContain('"vm_name":{"type":"string","pattern":"^[a-z][a-z0-9-]*$"}');
    expect(res.text).toContain('<button class="btn" type="submit">Trigger</button>');
  });

  test("graph shows the tasks bordered in the latest run's states, code shows the DAG file; the grid stream of an unknown DAG is a 404 problem", async () => {
    const graph = (await page("/dags/vm_deploy/graph").expect(200)).text;
    expect(graph).toMatch(/<title>create \(noop\) success<\/title><rect [^>]*stroke="#008000"/);
    expect(graph).toMatch(/<title>wait \(noop\) running<\/title><rect [^>]*stroke="#00ff00"/);
    expect((await page("/dags/vm_deploy/code").expect(200)).text).toContain("dag_id: vm_deploy");
    const missing = await page("/dags/nope/grid/events").expect(404);
    expect(missing.headers["content-type"]).toMatch(/application\/problem\+json/);
  });
});
