import { z } from "zod";
import { defineTool, type ToolDef } from "@svc/mcp";
import type { AssistantToolDeps } from "../deps";

const Source = z.object({ title: z.string(), path: z.string(), score: z.number() });

/** Documentation: retrieval with sources, and answers with citations. */
export function docsTools(d: AssistantToolDeps): ToolDef[] {
  return [
    defineTool({
      name: "search_docs",
      title: "Search the documentation",
      description: "Full-text search over the platform's documentation; each hit has its source file and a short excerpt.",
      tier: "read",
      action: "read",
      input: z.object({ query: z.string().trim().min(1).max(500), limit: z.number().int().min(1).max(10).default(5) }),
      output: z.object({ hits: z.array(Source.extend({ excerpt: z.string() })) }),
      async run(a) {
        const index = await d.docs();
        const hits = index
          .search(a.query, a.limit)
          .map((h) => ({ title: h.title, path: h.path, score: Math.round(h.score * 100) / 100, excerpt: h.text.length > 500 ? `${h.text.slice(0, 500)}…` : h.text }));
        return { data: { hits }, text: hits.length ? hits.map((h) => `${h.title} (${h.path})`).join("\n") : "no documentation matches" };
      },
    }),
    defineTool({
      name: "ask",
      title: "Ask the assistant",
      description: "Answer a question about the platform from its documentation and workflow catalogue, citing the sources used.",
      tier: "read",
      action: "read",
      input: z.object({ question: z.string().trim().min(1).max(2000) }),
      output: z.object({ answer: z.string(), sources: z.array(Source), mode: z.string() }),
      async run(a) {
        const r = (await d.api.post("/chat", { message: a.question })) as { answer?: unknown; sources?: unknown; mode?: unknown };
        const sources = Array.isArray(r.sources)
          ? (r.sources as z.infer<typeof Source>[]).map((s) => ({ title: String(s.title), path: String(s.path), score: Number(s.score) || 0 }))
          : [];
        const answer = typeof r.answer === "string" ? r.answer : "";
        const cites = sources.map((s, i) => `[${i + 1}] ${s.path}`).join("\n");
        return { data: { answer, sources, mode: typeof r.mode === "string" ? r.mode : "extractive" }, text: cites ? `${answer}\n\nSources:\n${cites}` : answer };
      },
    }),
  ];
}
