import type { DagDefinition } from "@svc/dags";
import type { ExtraDoc } from "./docs-index";

/** Each DAG's description, params and doc_md as a document for the docs index. */
export function dagDocs(dags: readonly DagDefinition[]): ExtraDoc[] {
  return dags.map((d) => {
    const params = Object.entries(d.params)
      .map(([k, s]) => `- ${k}${s.description ? `: ${s.description}` : ""}${s.default !== undefined ? ` (default ${JSON.stringify(s.default)})` : ""}`)
      .join("\n");
    const examples = d.examples.length ? `\n\nExamples: ${d.examples.map((e) => `"${e}"`).join(", ")}.` : "";
    const text = [`# Workflow ${d.dag_id}`, d.description ?? "", params ? `## Parameters of ${d.dag_id}\n${params}` : "", d.doc_md ?? ""].join("\n\n") + examples;
    return { title: `Workflow ${d.dag_id}`, path: `dags/${d.dag_id}`, text };
  });
}
