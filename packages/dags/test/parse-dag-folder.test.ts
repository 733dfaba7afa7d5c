import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NotFoundError } from "@svc/errors";
import { fileToken, formatProblems, parseDagFolder, resolveFileToken } from "../src";
import { listDagFiles } from "../src/parse-dag-folder";
import { testCatalog } from "./helpers/test-catalog";

const FIXTURES = path.join(__dirname, "fixtures");
const opts = { catalog: testCatalog, settings: { domain: "lab.example.com" } };

describe("parseDagFolder on the fixtures", () => {
  it("loads every YAML file (recursively, sorted by path, hidden files skipped) with absolute filelocs", async () => {
    const results = await parseDagFolder(FIXTURES, opts);
    expect(results.map((r) => path.relative(FIXTURES, r.fileloc))).toEqual([
      "broken_cycle.yaml",
      "nested/hello.yaml",
      "nightly_check.yml",
      "vm_deployment.yaml",
      "zz_duplicate.yaml",
    ]);
    expect(results.every((r) => path.isAbsolute(r.fileloc))).toBe(true);
    expect(results.map((r) => (r.ok ? r.dag.dag_id : "error"))).toEqual(["error", "hello", "nightly_check", "vm_deployment", "error"]);
  });

  it("gives the later file of a duplicate dag_id the import error, naming the first file", async () => {
    const results = await parseDagFolder(FIXTURES, opts);
    const dup = results.find((r) => r.fileloc.endsWith("zz_duplicate.yaml"))!;
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(formatProblems(dup.problems)).toBe("line 2: dag_id: 'hello' is already defined in nested/hello.yaml");
  });

  it("reports the cycle in broken_cycle.yaml", async () => {
    const results = await parseDagFolder(FIXTURES, opts);
    const broken = results[0]!;
    expect(broken.ok ? "" : formatProblems(broken.problems)).toBe("line 3: cycle in task dependencies: a → b → a");
  });

  it("throws NotFoundError for a missing folder", async () => {
    await expect(parseDagFolder(path.join(FIXTURES, "nope"), opts)).rejects.toThrow(NotFoundError);
  });
});

describe("DAG folders with links and unreadable content", () => {
  let root: string;
  let outside: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), "svc-dags-folder-"));
    outside = mkdtempSync(path.join(os.tmpdir(), "svc-dags-outside-"));
    writeFileSync(path.join(outside, "secret.yaml"), "dag_id: secret\ntasks: [{task_id: a, operator: noop}]\n");
    writeFileSync(path.join(root, "inside.yaml"), "dag_id: inside\ntasks: [{task_id: a, operator: noop}]\n");
    symlinkSync(path.join(outside, "secret.yaml"), path.join(root, "link_out.yaml"));
    symlinkSync(path.join(root, "inside.yaml"), path.join(root, "link_in.yml"));
    mkdirSync(path.join(root, ".git"));
    writeFileSync(path.join(root, ".git", "x.yaml"), "dag_id: git\n");
    writeFileSync(path.join(root, "notes.txt"), "not a dag");
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("follows symlinks that stay inside the folder and skips ones that leave it", async () => {
    const files = (await listDagFiles(root)).map((f) => path.basename(f));
    expect(files).toEqual(["inside.yaml", "link_in.yml"]);
  });

  it("fileToken is URL-safe and resolves back to the file", async () => {
    const file = path.join(root, "inside.yaml");
    const token = fileToken(file, root);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token).not.toContain(root.replace(/\//g, ""));
    expect(await resolveFileToken(token, root)).toBe(file);
  });

  it.each([
    ["a path outside the folder", () => Buffer.from("../outside.yaml").toString("base64url")],
    ["an absolute path", () => Buffer.from("/etc/passwd.yaml").toString("base64url")],
    ["a symlink leaving the folder", () => Buffer.from("link_out.yaml").toString("base64url")],
    ["a file that is not YAML", () => Buffer.from("notes.txt").toString("base64url")],
    ["a hidden directory", () => Buffer.from(".git/x.yaml").toString("base64url")],
    ["a missing file", () => Buffer.from("missing.yaml").toString("base64url")],
    ["a NUL byte", () => Buffer.from("inside.yaml\0.yaml").toString("base64url")],
    ["non-base64url text", () => "../../etc/passwd"],
    ["padded base64", () => `${Buffer.from("inside.yaml").toString("base64")}==`],
  ])("resolveFileToken refuses %s", async (_what, token) => {
    expect(await resolveFileToken(token(), root)).toBeUndefined();
  });
});
