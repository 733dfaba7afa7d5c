import { canonicalJson } from "./hash";

describe("canonicalJson", () => {
  it("sorts keys at every level and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it("drops undefined values so optional fields do not change the hash", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it("keeps a __proto__ key as data", () => {
    expect(canonicalJson(JSON.parse('{"__proto__": {"x": 1}}'))).toBe('{"__proto__":{"x":1}}');
  });
});
