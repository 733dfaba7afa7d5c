import { escapeHtml, html, page, stateBadge } from "./html";

describe("HTML escaping", () => {
  test("escapeHtml neutralises markup, quotes and attribute breakers", () => {
    expect(escapeHtml(`<script>alert("x")</script>&'=\``)).toBe("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;&#61;&#96;");
    expect(escapeHtml(null)).toBe("");
    expect(escapeHtml(42)).toBe("42");
  });

  test("the html tag escapes interpolations (also inside arrays) but keeps nested html fragments", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p title="${'"onmouseover="x'}">${inner}${["<a>", html`<br>`]}</p>`.value).toBe('<p title="&#34;onmouseover&#61;&#34;x"><b>&#60;i&#62;</b>&#60;a&#62;<br></p>');
  });

  test("page escapes the title and stateBadge escapes unknown states", () => {
    expect(page("<x>", html``)).toContain("<title>&#60;x&#62; - svc</title>");
    expect(stateBadge("<evil>").value).toContain("&#60;evil&#62;");
    expect(stateBadge(null).value).toContain(">none<");
  });
});
