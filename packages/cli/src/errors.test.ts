import { describeDbUrl } from "./errors";

test("a database URL is described by its hosts and ports, never its credentials: one host, libpq's multi-host form, or unparseable", () => {
  expect(describeDbUrl("postgres://svc:s3cret@db.internal:6432/svc")).toBe("db.internal:6432");
  expect(describeDbUrl("postgres://svc:s3cret@10.0.0.11:5432,10.0.0.12:5433/svc?target_session_attrs=read-write")).toBe("10.0.0.11:5432,10.0.0.12:5433");
  expect(describeDbUrl("postgres://svc:s3cret@10.0.0.11:5432,:x/svc")).toBe("(unparseable DATABASE_URL)");
  expect(describeDbUrl("not a url")).toBe("(unparseable DATABASE_URL)");
});
