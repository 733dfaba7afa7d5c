import { numberWordsToDigits } from "./number-words";

describe("numberWordsToDigits", () => {
  test.each([
    ["sixteen gigs of ram", "16 gigs of ram"],
    ["thirty-two gb", "32 gb"],
    ["twenty two cpus", "22 cpus"],
    ["a hundred gig disk", "100 gig disk"],
    ["two hundred and fifty gb", "250 gb"],
    ["a one-node cluster", "a 1-node cluster"],
  ])("'%s' → '%s'", (text, digits) => {
    expect(numberWordsToDigits(text)).toBe(digits);
  });

  test("words that only contain a number word, and names, are left as typed", () => {
    expect(numberWordsToDigits("create vm web-one for someone")).toBe("create vm web-one for someone");
  });
});
