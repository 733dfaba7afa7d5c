import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { HOSTILE_STRINGS, NUL_STRINGS } from "@svc/testing";
import { shellQuote } from "./shell-quote";

const PRINT_ARGS = "printf '%s\\0'";

/** Run `printf '%s\0' <quoted words>` through a real shell and split what arrives. */
function roundTrip(shell: string, words: readonly string[]): string[] {
  const r = spawnSync(shell, ["-c", `${PRINT_ARGS} ${shellQuote(words)}`], { maxBuffer: 64 * 1024 * 1024 });
  expect(r.status).toBe(0);
  const parts = r.stdout.toString("utf8").split("\0");
  parts.pop();
  return parts;
}

describe("shellQuote", () => {
  beforeAll(() => expect(existsSync("/tmp/svc-pwned")).toBe(false));
  afterAll(() => expect(existsSync("/tmp/svc-pwned")).toBe(false));

  it("has a corpus of at least 50 hostile strings", () => {
    expect(HOSTILE_STRINGS.length).toBeGreaterThanOrEqual(50);
  });

  it.each(["sh", "bash", "dash"])("delivers every hostile string byte-for-byte as one argument through %s -c", (shell) => {
    for (const s of HOSTILE_STRINGS) expect(roundTrip(shell, [s])).toEqual([s]);
  });

  it("delivers the whole corpus at once as separate arguments in order", () => {
    expect(roundTrip("sh", HOSTILE_STRINGS)).toEqual([...HOSTILE_STRINGS]);
  });

  it("rejects NUL with a clear message instead of truncating", () => {
    for (const s of NUL_STRINGS) expect(() => shellQuote(["echo", s])).toThrow(/NUL byte/);
  });

  it("rejects an empty argv", () => {
    expect(() => shellQuote([])).toThrow(/empty command/);
  });

  it("quotes with single quotes only, escaping embedded quotes as '\\''", () => {
    expect(shellQuote(["echo", "it's"])).toBe(`'echo' 'it'\\''s'`);
  });
});
