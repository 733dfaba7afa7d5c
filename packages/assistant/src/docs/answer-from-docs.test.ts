import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { createChatModel } from "../llm/chat-model";
import { startOpenAiStub, textCompletion, type OpenAiStub } from "../../test/openai-stub";
import { answerFromDocs } from "./answer-from-docs";
import { createDocsIndex, type DocsIndex } from "./docs-index";

describe("answerFromDocs", () => {
  let dir: string;
  let index: DocsIndex;
  let stub: OpenAiStub;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "svc-answer-"));
    await writeFile(
      path.join(dir, "observe.md"),
      [
        "# Observing runs",
        "## Progress",
        "Progress counts skipped tasks as done. A finished run always shows 100 percent.",
        "## Failed tasks",
        "When a task fails, the observer shows the last 50 log lines. It also recommends the log command and the grid URL.",
      ].join("\n"),
    );
    index = await createDocsIndex({ docsDir: dir });
    stub = await startOpenAiStub();
  });
  afterAll(async () => {
    await stub.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("without a model: the most relevant sentences, cited [n], with sources", async () => {
    const a = await answerFromDocs("how many log lines are shown when a task fails?", index);
    expect(a.mode).toBe("extractive");
    expect(a.found).toBe(true);
    expect(a.answer).toContain("last 50 log lines");
    expect(a.answer).toMatch(/\[1\]/);
    expect(a.sources[0]).toEqual({ title: "Observing runs › Failed tasks", path: `${path.basename(dir)}/observe.md#failed-tasks`, score: expect.any(Number) });
  });

  test("when nothing relevant is found it says so and lists what the platform can do", async () => {
    const a = await answerFromDocs("how do I bake bread", index, { catalog: CATALOG_FIXTURE });
    expect(a.found).toBe(false);
    expect(a.sources).toEqual([]);
    expect(a.answer).toMatch(/found nothing/);
    expect(a.answer).toMatch(/vm_deployment/);
    expect(a.answer).not.toMatch(/not initialized/i);
  });

  test("with a model: the model's grounded answer, and the passages sent to it numbered", async () => {
    stub.reply(() => ({ json: textCompletion("The observer shows the last 50 log lines [1].") }));
    const model = createChatModel({ model: "stub-model", baseUrl: stub.baseUrl, timeoutMs: 5000 });
    const a = await answerFromDocs("what happens when a task fails?", index, { model });
    expect(a).toMatchObject({ mode: "llm", answer: "The observer shows the last 50 log lines [1].", found: true });
    const sent = JSON.stringify(stub.requests.at(-1));
    expect(sent).toContain("[1] Observing runs");
  });

  test("with a failing model: the extractive answer and a warning", async () => {
    stub.reply(() => ({ raw: "oops", status: 500 }));
    const model = createChatModel({ model: "stub-model", baseUrl: stub.baseUrl, timeoutMs: 5000 });
    const a = await answerFromDocs("what does progress count?", index, { model });
    expect(a.mode).toBe("extractive");
    expect(a.answer).toMatch(/skipped tasks as done/);
    expect(a.warnings[0]).toMatch(/model unavailable/);
  });
});
