import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { DEFAULT_DAGS_DIR, loadEvalCatalog } from "./load-catalog";

describe("loadEvalCatalog: the eval scores the real DAG folder or stops with a reason", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "svc-eval-dags-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("the repository's dags/ loads every DAG it holds, from the folder", async () => {
    const loaded = await loadEvalCatalog(DEFAULT_DAGS_DIR);
    expect(loaded.source).toBe("dags");
    expect(loaded.entries.map((e) => e.dag_id)).toEqual(expect.arrayContaining(["identity_deployment", "vm_deployment", "cluster_initial_deployment"]));
  });

  test("a DAG folder that does not exist is an error naming it, not a fixture catalogue", async () => {
    const missing = path.join(dir, "nope");
    await expect(loadEvalCatalog(missing)).rejects.toThrow(/cannot read the DAG folder .*nope/);
  });

  test("a folder with no DAG files is an error", async () => {
    await expect(loadEvalCatalog(dir)).rejects.toThrow(/no DAG files in/);
  });

  test("one DAG file that does not parse stops the eval, naming the file, even when the others parse", async () => {
    await mkdir(path.join(dir, "sub"));
    await copyFile(path.join(DEFAULT_DAGS_DIR, "vm_deployment.yaml"), path.join(dir, "vm_deployment.yaml"));
    await writeFile(path.join(dir, "sub", "broken.yaml"), "dag_id: broken\ntasks: [\n");
    await expect(loadEvalCatalog(dir)).rejects.toThrow(/1 DAG file\(s\) in .* do not parse: sub\/broken\.yaml/);
  });
});
