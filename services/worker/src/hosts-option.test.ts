import { parseHostsOption } from "./hosts-option";

describe("svc-worker --hosts", () => {
  test("serves every host by default and with 'all'", () => {
    expect(parseHostsOption([], undefined)).toEqual({ kind: "hosts", hosts: "all" });
    expect(parseHostsOption(["--hosts", "all"], "a")).toEqual({ kind: "hosts", hosts: "all" });
  });

  test("takes a list from the flag over the environment, without duplicates", () => {
    expect(parseHostsOption(["--hosts=a,b,a"], "c")).toEqual({ kind: "hosts", hosts: ["a", "b"] });
    expect(parseHostsOption([], "c")).toEqual({ kind: "hosts", hosts: ["c"] });
  });

  test("refuses an invalid host name instead of dropping it", () => {
    expect(() => parseHostsOption(["--hosts", "a,B_2"], undefined)).toThrow(/'B_2' is not a host name/);
    expect(() => parseHostsOption(["--hosts", "a,"], undefined)).toThrow(/'' is not a host name/);
    expect(() => parseHostsOption(["--hosts"], undefined)).toThrow(/needs a value/);
    expect(() => parseHostsOption(["--host", "a"], undefined)).toThrow(/unknown argument '--host'/);
  });

  test("--help is asked for", () => {
    expect(parseHostsOption(["--hosts", "a", "--help"], undefined)).toEqual({ kind: "help" });
  });
});
