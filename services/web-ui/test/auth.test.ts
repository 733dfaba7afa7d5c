import request from "supertest";
import { AUTH, BEARER, createWebFixture, expectProblem, type WebFixture } from "./helpers";

let f: WebFixture;
let open: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webauth");
  open = await createWebFixture("webopen", { auth: {} });
});
afterAll(async () => {
  await f.close();
  await open.close();
});

describe("REST authentication", () => {
  test("without credentials the API answers 401 problem+json with a WWW-Authenticate challenge", async () => {
    for (const url of ["/api/v1/dags", "/api/v1/dags/hello", "/api/v1/importErrors", "/home", "/dags/hello/grid"]) {
      const res = await request(f.app).get(url);
      expect(res.status).toBe(401);
      expect(res.headers["www-authenticate"]).toBe('Basic realm="svc", Bearer realm="svc"');
    }
    expectProblem(await request(f.app).get("/api/v1/dags"), 401, /Authentication required/);
    expectProblem(await request(f.app).post("/api/v1/dags/hello/dagRuns").send({}), 401);
  });

  test("HTTP basic with the admin credentials and a bearer token are both accepted", async () => {
    await request(f.app).get("/api/v1/dags").auth(AUTH.adminUser!, AUTH.adminPassword!).expect(200);
    await request(f.app).get("/api/v1/dags").set("Authorization", BEARER).expect(200);
  });

  test("wrong passwords, wrong users, wrong tokens and unknown schemes are refused", async () => {
    await request(f.app).get("/api/v1/dags").auth(AUTH.adminUser!, "wrong").expect(401);
    await request(f.app).get("/api/v1/dags").auth("root", AUTH.adminPassword!).expect(401);
    await request(f.app).get("/api/v1/dags").set("Authorization", "Bearer nope").expect(401);
    expectProblem(await request(f.app).get("/api/v1/dags").set("Authorization", `Token ${AUTH.apiToken}`), 401, /Invalid credentials/);
  });

  test("health, version and the OpenAPI document need no credentials", async () => {
    await request(f.app).get("/api/v1/health").expect(200);
    await request(f.app).get("/api/v1/version").expect(200);
    await request(f.app).get("/api/v1/openapi.json").expect(200);
  });

  test("with no credentials configured the API is open", async () => {
    await request(open.app).get("/api/v1/dags").expect(200);
  });
});

describe("the open API (development, no credentials) and DNS rebinding", () => {
  test("a request whose Host is not a loopback name is refused (403), so a rebound page cannot read or act as admin", async () => {
    const read = await request(open.app).get("/api/v1/dags").set("Host", "rebind.example:8888");
    expectProblem(read, 403, /does not answer to the Host 'rebind\.example:8888'/);
    const act = await request(open.app)
      .patch("/api/v1/dags/hello?update_mask=is_paused")
      .set("Host", "rebind.example:8888")
      .set("Origin", "http://rebind.example:8888")
      .send({ is_paused: false });
    expectProblem(act, 403);
    await request(open.app).get("/api/v1/dags").set("Host", "localhost:8888").expect(200);
  });

  test("a POST with no Origin, no Sec-Fetch-Site and no JSON Content-Type is refused; with the JSON type it passes", async () => {
    expectProblem(await request(open.app).post("/api/v1/dags/~/dagRuns/list"), 403, /Content-Type: application\/json/);
    await request(open.app).post("/api/v1/dags/~/dagRuns/list").set("Content-Type", "application/json").expect(200);
  });
});
