import { realpath, stat } from "node:fs/promises";
import path from "node:path";

const DAG_FILE = /\.ya?ml$/i;

/**
 * Opaque, URL-safe token for a DAG file (Airflow's `file_token`): base64url of the path relative to
 * the DAG folder. It reveals nothing outside the folder and resolves only inside it.
 */
export function fileToken(fileloc: string, dagsDir: string): string {
  const rel = path.relative(path.resolve(dagsDir), path.resolve(dagsDir, fileloc)).split(path.sep).join("/");
  return Buffer.from(rel, "utf8").toString("base64url");
}

/**
 * The absolute path of the DAG file a token names, or undefined when the token is malformed, points
 * outside the DAG folder (also through symlinks), is not a YAML file, or the file does not exist.
 */
export async function resolveFileToken(token: string, dagsDir: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(token)) return undefined;
  const rel = Buffer.from(token, "base64url").toString("utf8");
  if (Buffer.from(rel, "utf8").toString("base64url") !== token) return undefined; // not canonical base64url
  if (!DAG_FILE.test(rel) || rel.includes("\0") || rel.includes("\\") || path.posix.isAbsolute(rel)) return undefined;
  const parts = rel.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".." || p.startsWith("."))) return undefined;
  const root = path.resolve(dagsDir);
  const file = path.join(root, ...parts);
  try {
    const [rootReal, fileReal] = await Promise.all([realpath(root), realpath(file)]);
    if (!fileReal.startsWith(rootReal + path.sep) || !(await stat(fileReal)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return file;
}
