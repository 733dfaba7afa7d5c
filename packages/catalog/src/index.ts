export { CATALOG_PATHS, CATALOG_DAG_IDS, PRODUCT_DAG_IDS } from "./paths";
export type { CatalogDagId } from "./paths";
export { renderTaskArgs, previewPlaybookTask } from "./preview";
export type { TaskArgsPreview, PlaybookPreview, PreviewOptions } from "./preview";
