import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Logger } from "@svc/logger";
import { silentLogger } from "@svc/logger";
import { describeCatalogue } from "../catalog/catalog-entry";
import type { RouterCatalogEntry } from "../types";
import type { DocsIndex } from "./docs-index";
import { extractAnswer } from "./extractive-answer";

/** A cited source of an answer; [n] in the answer refers to sources[n-1]. */
export interface DocSource {
  title: string;
  path: string;
  score: number;
}

/** An answer to a documentation question. */
export interface DocsAnswer {
  answer: string;
  sources: DocSource[];
  mode: "extractive" | "llm";
  /** False when nothing relevant was found. */
  found: boolean;
  warnings: string[];
}

/** Options for answerFromDocs. */
export interface AnswerOptions {
  /** A LangChain chat model (ChatOpenAI); without one the answer is extractive. */
  model?: BaseChatModel;
  /** Used to say what the platform can do when the docs have nothing. */
  catalog?: readonly RouterCatalogEntry[];
  /** Passages retrieved. */
  k?: number;
  timeoutMs?: number;
  logger?: Logger;
}

const SYSTEM_PROMPT = [
  "You answer questions about an infrastructure automation platform using only the numbered passages given.",
  "Cite the passages you use as [n]. If the passages do not answer the question, say so plainly.",
  "Be brief. Do not invent commands, options or facts that are not in the passages.",
].join(" ");

function notFound(catalog: readonly RouterCatalogEntry[] | undefined): string {
  const can =
    catalog && catalog.length > 0
      ? describeCatalogue(catalog)
      : "I can route requests to the installed workflows (identity, certificate authority, router, registry, OpenShift cluster, VMs, health checks).";
  return `I found nothing about that in the documentation. ${can}`;
}

/** Answers from the docs index: grounded in retrieved passages with [n] citations; extractive without a model or when it fails. */
export async function answerFromDocs(question: string, index: DocsIndex, options: AnswerOptions = {}): Promise<DocsAnswer> {
  const hits = index.search(question, options.k ?? 3);
  const sources = hits.map(({ title, path, score }) => ({ title, path, score }));
  if (hits.length === 0) return { answer: notFound(options.catalog), sources: [], mode: "extractive", found: false, warnings: [] };
  const extractive = (warnings: string[]): DocsAnswer => ({ answer: extractAnswer(question, hits), sources, mode: "extractive", found: true, warnings });
  if (!options.model) return extractive([]);
  const passages = hits.map((h, i) => `[${i + 1}] ${h.title} (${h.path})\n${h.text}`).join("\n\n");
  try {
    const reply = await options.model.invoke([new SystemMessage(SYSTEM_PROMPT), new HumanMessage(`Passages:\n\n${passages}\n\nQuestion: ${question}`)], {
      signal: AbortSignal.timeout(options.timeoutMs ?? 15000),
    });
    const text = reply.text.trim();
    if (!text) throw new Error("empty answer");
    return { answer: text, sources, mode: "llm", found: true, warnings: [] };
  } catch (err) {
    (options.logger ?? silentLogger()).warn({ error: (err as Error).message }, "model answer failed");
    return extractive(["model unavailable; answered from the documentation extract"]);
  }
}
