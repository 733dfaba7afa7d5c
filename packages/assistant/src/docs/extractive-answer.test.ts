import { extractAnswer, sentencesOf } from "./extractive-answer";

describe("sentencesOf", () => {
  test("joins hard-wrapped lines, keeps list items apart, drops code and keeps underscores in names", () => {
    const md = "The observer counts\nskipped tasks as done. It reports progress_percent.\n\n- first item of a list\n- second item\n  wrapped here\n\n```\ncode block line\n```";
    expect(sentencesOf(md)).toEqual(["The observer counts skipped tasks as done.", "It reports progress_percent.", "first item of a list", "second item wrapped here"]);
  });
});

describe("extractAnswer", () => {
  test("picks the sentences sharing the most question words and cites their passage", () => {
    const hits = [
      { title: "A", path: "a.md", score: 2, text: "Unrelated opening sentence here. Failed tasks show the last 50 log lines." },
      { title: "B", path: "b.md", score: 1, text: "Log lines come from the worker stream." },
    ];
    const answer = extractAnswer("how many log lines do failed tasks show?", hits);
    expect(answer).toContain("Failed tasks show the last 50 log lines. [1]");
    expect(answer).not.toContain("Unrelated");
  });
});
