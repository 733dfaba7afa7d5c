import express from "express";
import request from "supertest";
import { allowedHostsFor, csrfGuard, hostGuard } from "./index";
import { LOOPBACK_HOSTS } from "./edge";

// The edge guards on a real express app: the Host allow-list (DNS rebinding) and the
// cross-site request rules for state-changing methods.
function appWith(allowed: readonly string[] | undefined) {
  const app = express();
  app.use(hostGuard(allowed), csrfGuard(), express.json());
  app.get("/thing", (_req, res) => void res.json({ ok: true }));
  app.post("/thing", (_req, res) => void res.json({ done: true }));
  app.delete("/thing", (_req, res) => void res.json({ deleted: true }));
  return app;
}

describe("the Host allow-list", () => {
  test("an open API (no credentials) answers only to loopback names, with any port; any other Host is 403, reads included", async () => {
    const app = appWith(allowedHostsFor({}));
    for (const host of ["127.0.0.1", "127.0.0.1:8888", "localhost:8080", "LOCALHOST", "[::1]:8888", "[::1]"]) {
      const r = await request(app).get("/thing").set("Host", host);
      expect([host, r.status]).toEqual([host, 200]);
    }
    for (const host of ["rebind.example:8888", "rebind.example", "127.0.0.1.rebind.example", "localhost.rebind.example", "[::2]:8888", "evil@localhost", ""]) {
      const r = await request(app).get("/thing").set("Host", host);
      expect([host, r.status, r.headers["content-type"]]).toEqual([host, 403, expect.stringMatching(/^application\/problem\+json/)]);
    }
  });

  test("a rebinding page's same-origin POST (its Origin matches its own Host) is refused in open mode", async () => {
    const r = await request(appWith(allowedHostsFor({})))
      .post("/thing")
      .set("Host", "rebind.example:8888")
      .set("Origin", "http://rebind.example:8888")
      .send({});
    expect(r.status).toBe(403);
    expect(r.body.detail).toMatch(/does not answer to the Host 'rebind\.example:8888'.*SVC_ALLOWED_HOSTS/);
  });

  test("with credentials any Host is answered unless SVC_ALLOWED_HOSTS names some; then those and the loopback names", async () => {
    const auth = { apiToken: "t" };
    expect(allowedHostsFor(auth)).toBeUndefined();
    expect(
      (
        await request(appWith(allowedHostsFor(auth)))
          .get("/thing")
          .set("Host", "svc.example:8888")
      ).status,
    ).toBe(200);
    const listed = appWith(allowedHostsFor(auth, ["svc.example", "[2001:db8::5]"]));
    expect((await request(listed).get("/thing").set("Host", "SVC.example:8888")).status).toBe(200);
    expect((await request(listed).get("/thing").set("Host", "[2001:db8::5]:8888")).status).toBe(200);
    expect((await request(listed).get("/thing").set("Host", "localhost:8888")).status).toBe(200);
    expect((await request(listed).get("/thing").set("Host", "other.example")).status).toBe(403);
    expect(LOOPBACK_HOSTS).toEqual(["127.0.0.1", "localhost", "::1"]);
  });
});

describe("state-changing requests", () => {
  const app = appWith(undefined);

  test("a POST with no Origin, no Sec-Fetch-Site and no JSON Content-Type is refused (403), even with no body; a DELETE (preflighted cross-site) is not", async () => {
    const r = await request(app).post("/thing");
    expect(r.status).toBe(403);
    expect(r.body.detail).toMatch(/Content-Type: application\/json/);
    expect((await request(app).delete("/thing")).status).toBe(200);
    expect((await request(app).delete("/thing").set("Origin", "http://evil.example")).status).toBe(403);
  });

  test("scripts and CLIs pass with a JSON Content-Type (with or without a body); the server's own pages pass with their Origin or Sec-Fetch-Site", async () => {
    expect((await request(app).post("/thing").set("Content-Type", "application/json")).status).toBe(200);
    expect((await request(app).delete("/thing").set("Content-Type", "application/json")).status).toBe(200);
    expect((await request(app).post("/thing").send({ a: 1 })).status).toBe(200);
    const own = await request(app).post("/thing").set("Host", "svc.example:8888").set("Origin", "http://svc.example:8888");
    expect(own.status).toBe(200);
    expect((await request(app).post("/thing").set("Sec-Fetch-Site", "same-origin")).status).toBe(200);
  });

  test("another site is refused by its Origin or its Sec-Fetch-Site; a non-JSON body is refused whoever sends it", async () => {
    expect((await request(app).post("/thing").set("Origin", "http://evil.example").send({})).status).toBe(403);
    expect((await request(app).post("/thing").set("Sec-Fetch-Site", "cross-site").send({})).status).toBe(403);
    expect((await request(app).post("/thing").set("Sec-Fetch-Site", "same-site").send({})).status).toBe(403);
    expect((await request(app).post("/thing").set("Sec-Fetch-Site", "same-origin").type("form").send("a=1")).status).toBe(403);
    expect((await request(app).get("/thing").set("Origin", "http://evil.example")).status).toBe(200);
  });
});
