import { readFileSync } from "node:fs";
import path from "node:path";
import { productPortRows } from "@svc/vm/plan";

// docs/clouds.md's table of the ports each product opens on a cloud host is the code's table
// (PRODUCT_PORTS), row by row: the page cannot drift from what the firewall objects open.
test("docs/clouds.md lists each product's ports exactly as PRODUCT_PORTS opens them", () => {
  const page = readFileSync(path.resolve(__dirname, "../../../docs/clouds.md"), "utf8");
  const section = page.slice(page.indexOf("## Products on a cloud host: firewall rules"));
  const rows = section
    .split("\n")
    .filter((l) => /^\| [a-z]/.test(l) && !l.startsWith("| Product"))
    .map((l) =>
      l
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    )
    .map(([product, ports]) => ({ product, ports }));
  expect(rows).toEqual(productPortRows());
});
