import express from "express";
import request from "supertest";
import { BadRequestError, DagNotFoundError } from "@svc/errors";
import { errorHandler, notFoundHandler, sendProblem } from "./index";

function recordingLogger() {
  const lines: { fields: unknown; msg: string }[] = [];
  return { lines, error: (fields: unknown, msg?: string) => void lines.push({ fields, msg: msg ?? "" }) };
}

function appWith(logger: ReturnType<typeof recordingLogger>) {
  const app = express();
  app.use(express.json({ limit: "100b" }));
  app.get("/typed", () => {
    throw new DagNotFoundError("nope");
  });
  app.get("/boom", () => {
    throw new Error("secret internals");
  });
  app.post("/echo", (req, res) => void res.json(req.body));
  app.get("/extra", (_req, res) => sendProblem(res, new BadRequestError("x: bad", { field: "x" }), { flow_id: "f-1" }));
  app.use(notFoundHandler);
  app.use(errorHandler(logger as never));
  return app;
}

const problemOf = (res: request.Response) => {
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  return JSON.parse(res.text) as Record<string, unknown>;
};

describe("problem JSON", () => {
  const logger = recordingLogger();
  const app = appWith(logger);

  test("a typed error answers its status as an RFC 7807 problem", async () => {
    const res = await request(app).get("/typed");
    expect(res.status).toBe(404);
    const p = problemOf(res);
    expect(p).toMatchObject({ status: 404, title: "Not Found", detail: expect.stringContaining("nope") });
    expect(typeof p.type).toBe("string");
    expect(logger.lines).toEqual([]);
  });

  test("unknown paths are a 404 problem naming the method and path", async () => {
    const res = await request(app).delete("/nowhere");
    expect(res.status).toBe(404);
    expect(problemOf(res)).toMatchObject({ status: 404, detail: "No such endpoint: DELETE /nowhere" });
  });

  test("malformed JSON is a 400 problem on the body; an oversized one is a 413", async () => {
    const bad = await request(app).post("/echo").set("Content-Type", "application/json").send("{not json");
    expect(bad.status).toBe(400);
    expect(problemOf(bad)).toMatchObject({ status: 400, title: "Bad Request", detail: "body: request body is not valid JSON", field: "body" });
    const big = await request(app)
      .post("/echo")
      .send({ data: "x".repeat(500) });
    expect(big.status).toBe(413);
    expect(problemOf(big)).toMatchObject({ status: 413, title: "Payload Too Large", field: "body" });
  });

  test("an untyped error is a logged 500 that does not leak its message", async () => {
    const res = await request(app).get("/boom");
    expect(res.status).toBe(500);
    expect(res.text).not.toContain("secret internals");
    expect(problemOf(res)).toMatchObject({ status: 500 });
    expect(logger.lines).toEqual([{ fields: expect.objectContaining({ method: "GET", path: "/boom" }), msg: "request failed" }]);
  });

  test("sendProblem adds extra members", async () => {
    const res = await request(app).get("/extra");
    expect(res.status).toBe(400);
    expect(problemOf(res)).toMatchObject({ status: 400, field: "x", flow_id: "f-1" });
  });
});
