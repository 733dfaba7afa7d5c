import { ConfigError, loadConfig } from "./config";

test("SVC_ALLOWED_HOSTS is a comma-separated list of host names or addresses; unset means any Host", () => {
  expect(loadConfig({}).allowedHosts).toBeUndefined();
  expect(loadConfig({ SVC_ALLOWED_HOSTS: "svc.example.com, assistant-api,[2001:db8::5],192.0.2.10" }).allowedHosts).toEqual([
    "svc.example.com",
    "assistant-api",
    "[2001:db8::5]",
    "192.0.2.10",
  ]);
});

test("a Host with a port, a path or a wildcard in SVC_ALLOWED_HOSTS is a startup error naming the variable", () => {
  for (const bad of ["svc.example.com:8888", "cafe.de:80", "[::1]:8888", "svc.example.com/ui", "*.example.com", " , "]) {
    expect(() => loadConfig({ SVC_ALLOWED_HOSTS: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_ALLOWED_HOSTS: bad })).toThrow(/SVC_ALLOWED_HOSTS/);
  }
});
