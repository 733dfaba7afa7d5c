import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { createDocsIndex } from "./docs-index";
import { splitMarkdown } from "./split-passages";

describe("splitMarkdown", () => {
  test("splits at headings, titles passages by document and section, ignores headings in code fences", () => {
    const md = "# Guide\nintro text\n## Install\nrun it\n```\n# not a heading\n```\n## Remove VMs\nbye";
    const p = splitMarkdown(md, "docs/guide.md", "guide");
    expect(p.map((x) => [x.title, x.path])).toEqual([
      ["Guide", "docs/guide.md"],
      ["Guide › Install", "docs/guide.md#install"],
      ["Guide › Remove VMs", "docs/guide.md#remove-vms"],
    ]);
    expect(p[1]!.text).toContain("# not a heading");
  });
});

describe("createDocsIndex", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "svc-docs-"));
    await mkdir(path.join(dir, "docs", "ops"), { recursive: true });
    await writeFile(
      path.join(dir, "docs", "routing.md"),
      "# Routing\n## Safety gate\nRequests with shell syntax are refused. The gate runs before any model.\n## Params\nThe router extracts vm_name and memory.",
    );
    await writeFile(path.join(dir, "docs", "ops", "troubleshooting.md"), "# Troubleshooting\n## DAG missing in the UI\nList import errors, then reserialize the DAGs.");
    await writeFile(path.join(dir, "docs", "notes.txt"), "not markdown: shell syntax");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("walks docs/**/*.md and ranks the passage that answers the query first", async () => {
    const index = await createDocsIndex({ docsDir: path.join(dir, "docs") });
    expect(index.size).toBe(3);
    const hits = index.search("why was my request with shell syntax refused?", 2);
    expect(hits[0]).toMatchObject({ title: "Routing › Safety gate", path: "docs/routing.md#safety-gate" });
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(index.search("import errors")[0]!.path).toBe("docs/ops/troubleshooting.md#dag-missing-in-the-ui");
  });

  test("extra docs (DAG descriptions) are searchable too, and a missing folder is not an error", async () => {
    const index = await createDocsIndex({
      docsDir: path.join(dir, "absent"),
      extraDocs: [{ title: "Workflow vm_deployment", path: "dags/vm_deployment", text: "Creates a virtual machine from an image." }],
    });
    expect(index.search("virtual machine image")[0]).toMatchObject({ path: "dags/vm_deployment" });
  });

  test("queries with no indexed words return nothing", async () => {
    const index = await createDocsIndex({ docsDir: path.join(dir, "docs") });
    expect(index.search("bake bread")).toEqual([]);
  });
});
