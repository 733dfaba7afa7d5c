/** A searchable piece of documentation: one section, or part of a long one. */
export interface Passage {
  title: string;
  /** Where it lives: "docs/file.md#anchor" or a caller-given path. */
  path: string;
  text: string;
}

const MAX_CHARS = 1500;

/** GitHub-style heading anchor. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .trim()
    .replace(/[^\w\s-]/g, "")
    .replace(/\s+/g, "-");
}

/** Long sections are cut at paragraph breaks so that one passage stays focused. */
function chunk(text: string): string[] {
  if (text.length <= MAX_CHARS) return [text];
  const out: string[] = [];
  let cur = "";
  for (const para of text.split(/\n{2,}/)) {
    if (cur && cur.length + para.length > MAX_CHARS) {
      out.push(cur);
      cur = "";
    }
    cur = cur ? `${cur}\n\n${para}` : para;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Splits markdown into passages at headings (those inside code fences do not count).
 * Each passage is titled "<document title> › <section>" and pathed "<path>#<anchor>".
 */
export function splitMarkdown(markdown: string, docPath: string, fallbackTitle: string): Passage[] {
  const lines = markdown.split(/\r?\n/);
  const sections: { heading: string | null; body: string[] }[] = [{ heading: null, body: [] }];
  let docTitle: string | null = null;
  let fenced = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      const heading = h[2]!;
      if (h[1] === "#" && docTitle === null) docTitle = heading;
      sections.push({ heading, body: [] });
    } else {
      sections[sections.length - 1]!.body.push(line);
    }
  }
  const title = docTitle ?? fallbackTitle;
  return sections.flatMap((s) => {
    const body = s.body.join("\n").trim();
    if (!body) return [];
    const isSection = s.heading !== null && s.heading !== title;
    const sectionTitle = isSection ? `${title} › ${s.heading}` : title;
    const path = isSection ? `${docPath}#${anchorOf(s.heading!)}` : docPath;
    return chunk(body).map((text) => ({ title: sectionTitle, path, text }));
  });
}
