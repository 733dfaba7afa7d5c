import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { NotFoundError } from "@svc/errors";
import { parseDagFile, type ParseDagOptions } from "./parse-dag-file";
import type { DagFileResult } from "./types";
import { loadYaml, MAX_FILE_BYTES } from "./yaml-source";

const DAG_FILE = /\.ya?ml$/i;

/** Paths (absolute, sorted) of every DAG file under `dir`; hidden entries and links leaving the folder are skipped. */
export async function listDagFiles(dir: string): Promise<string[]> {
  const root = path.resolve(dir);
  let rootReal: string;
  try {
    rootReal = await realpath(root);
    if (!(await stat(rootReal)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new NotFoundError("not_found", `DAG folder '${root}' does not exist or is not a directory`);
  }
  const out: string[] = [];
  const walk = async (d: string, depth: number): Promise<void> => {
    if (depth > 16) return;
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "__pycache__") continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full, depth + 1);
      else if (e.isFile() && DAG_FILE.test(e.name)) out.push(full);
      else if (e.isSymbolicLink() && DAG_FILE.test(e.name) && (await insideRoot(full, rootReal))) out.push(full);
    }
  };
  await walk(root, 0);
  return out.sort();
}

async function insideRoot(file: string, rootReal: string): Promise<boolean> {
  try {
    const real = await realpath(file);
    return real.startsWith(rootReal + path.sep) && (await stat(real)).isFile();
  } catch {
    return false;
  }
}

/**
 * Parse every DAG file under `dir` (sorted by path; fileloc is the absolute path). When two files
 * define the same dag_id the later one, by path, gets an import error and the first keeps its DAG.
 */
export async function parseDagFolder(dir: string, opts: ParseDagOptions): Promise<DagFileResult[]> {
  const root = path.resolve(dir);
  const files = await listDagFiles(root);
  const results: DagFileResult[] = [];
  const owner = new Map<string, string>();
  for (const file of files) {
    const { result, text } = await parseOne(file, opts);
    if (result.ok) {
      const first = owner.get(result.dag.dag_id);
      if (first !== undefined) {
        results.push({ ok: false, fileloc: file, problems: [duplicateProblem(result.dag.dag_id, path.relative(root, first), text)] });
        continue;
      }
      owner.set(result.dag.dag_id, file);
    }
    results.push(result);
  }
  return results;
}

async function parseOne(file: string, opts: ParseDagOptions): Promise<{ result: DagFileResult; text: string }> {
  const failed = (message: string) => ({ result: { ok: false as const, fileloc: file, problems: [{ message }] }, text: "" });
  try {
    const info = await stat(file);
    if (info.size > MAX_FILE_BYTES) return failed(`file is larger than ${MAX_FILE_BYTES} bytes`);
    const text = await readFile(file, "utf8");
    return { result: parseDagFile(file, text, opts), text };
  } catch (e) {
    return failed(`cannot read file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function duplicateProblem(dagId: string, firstRel: string, text: string): { message: string; line?: number } {
  const line = loadYaml(text).lineOf(["dag_id"]);
  const message = `dag_id: '${dagId}' is already defined in ${firstRel}`;
  return line === undefined ? { message } : { message, line };
}
