import { sql, type Kysely } from "kysely";

/** The channel a commit that changes what the catalogue lists notifies (see DagChangeFeed in @svc/db). */
export const DAG_CHANGE_CHANNEL = "svc_dag_change";

/**
 * A NOTIFY on `svc_dag_change` from every commit that changes what the catalogue lists: a DAG
 * added or removed, paused or unpaused, (de)activated, its definition or file changed, a file's
 * import error added or removed. Postgres sends it to listeners at commit and folds repeats within
 * one transaction, so a sync of the DAG folder that changes nothing sends nothing. Readers that
 * keep the catalogue in memory drop it on the notification.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `create function svc_notify_dag_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('${DAG_CHANGE_CHANNEL}', '');
  return null;
end $$;
create trigger dag_change_row after insert or delete on dag for each row execute function svc_notify_dag_change();
create trigger dag_change_update after update on dag for each row
  when ((old.is_paused, old.is_active, old.hash, old.fileloc) is distinct from (new.is_paused, new.is_active, new.hash, new.fileloc))
  execute function svc_notify_dag_change();
create trigger dag_change_truncate after truncate on dag for each statement execute function svc_notify_dag_change();
create trigger import_error_change_row after insert or delete on import_error for each row execute function svc_notify_dag_change();
create trigger import_error_change_update after update on import_error for each row
  when (old.filename is distinct from new.filename) execute function svc_notify_dag_change();
create trigger import_error_change_truncate after truncate on import_error for each statement execute function svc_notify_dag_change();`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw("drop function svc_notify_dag_change() cascade").execute(db);
}
