import { numberWordsToDigits } from "./number-words";

describe("numberWordsToDigits", () => {
  test.each([
    ["sixteen gigs of ram", "16 gigs of ram"],
    ["thirty-two gb", "32 gb"],
    ["twenty two cpus", "22 cpus"],
    ["a hundred gig disk", "100 gig disk"],
    ["two hundred and fifty gb", "250 gb"],
    ["a one-node cluster", "a 1-node cluster"],
    ["half a gig of ram", "0.5 gig of ram"],
    ["one and a half gigs of memory", "1.5 gigs of memory"],
    ["a quarter terabyte of disk", "0.25 terabyte of disk"],
    ["a quarter of a terabyte", "0.25 terabyte"],
    ["a dozen vcpus", "12 vcpus"],
    ["two dozen cores", "24 cores"],
    ["a single vcpu and a gig of ram", "1 vcpu and 1 gig of ram"],
    ["tres nodos", "3 nodos"],
    ["trois noeuds", "3 noeuds"],
  ])("'%s' → '%s'", (text, digits) => {
    expect(numberWordsToDigits(text)).toBe(digits);
  });

  test("words that only contain a number word, and names, are left as typed", () => {
    expect(numberWordsToDigits("create vm web-one for someone")).toBe("create vm web-one for someone");
    // "a" and "single" stay words before anything that is not an amount's unit.
    expect(numberWordsToDigits("a single node cluster and a vm")).toBe("a single node cluster and a vm");
  });
});
