import { formatTable, jsonLine } from "./report";

describe("benchmark report", () => {
  it("prints the JSON line with keys in order, numbers rounded to 0.001 and NaN as null", () => {
    expect(jsonLine({ connections: 200, intent_p50_ms: 12.34567, missing: NaN, nested: { "1": 10.00049 } })).toBe(
      '{"connections":200,"intent_p50_ms":12.346,"missing":null,"nested":{"1":10}}',
    );
  });

  it("pads the table's left column to its longest key", () => {
    expect(
      formatTable("title", [
        ["a", 1],
        ["longer", "x"],
      ]),
    ).toBe("title\n  a       1\n  longer  x");
  });
});
