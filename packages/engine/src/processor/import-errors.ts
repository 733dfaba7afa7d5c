import type { Db, ImportErrorRow } from "@svc/db";

/** The import_error row of the file that defines `dagId`, or undefined when it loads cleanly (or the DAG is unknown). */
export async function getImportErrorForDag(db: Db, dagId: string): Promise<ImportErrorRow | undefined> {
  return db.selectFrom("import_error").innerJoin("dag", "dag.fileloc", "import_error.filename").selectAll("import_error").where("dag.dag_id", "=", dagId).executeTakeFirst();
}
