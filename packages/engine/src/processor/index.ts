export { syncDagFolder } from "./sync-dag-folder";
export type { SyncDagFolderDeps, SyncReport } from "./sync-dag-folder";
export { watchDagFolder } from "./watch-dag-folder";
export type { WatchDagFolderOptions } from "./watch-dag-folder";
export { getImportErrorForDag } from "./import-errors";
