import { ConfigError, loadConfig } from "./config";

test("DATABASE_URL takes a plain URL and libpq's multi-host form (what `pg_autoctl show uri` prints) as they are", () => {
  expect(loadConfig({ DATABASE_URL: "postgres://svc:pw@db:5432/svc" }).databaseUrl).toBe("postgres://svc:pw@db:5432/svc");
  const multi = "postgres://svc:pw@10.0.0.1:5432,10.0.0.2:5432/svc?target_session_attrs=read-write&sslmode=require";
  expect(loadConfig({ DATABASE_URL: multi }).databaseUrl).toBe(multi);
});

test("a DATABASE_URL that is no URL is refused", () => {
  expect(() => loadConfig({ DATABASE_URL: "127.0.0.1:5432, 127.0.0.2" })).toThrow(ConfigError);
});
