import { readCloudTarget, retiredProviderMessage } from "./cloud-target";

test("a provider, a region or location and host words are read as typed; aliases fold to the provider", () => {
  expect(readCloudTarget("create a vm called web01 on aws in eu-west-1")).toEqual({ provider: "aws", region: "eu-west-1", hosts: [] });
  expect(readCloudTarget("an ec2 instance named b in us-gov-west-1")).toEqual({ provider: "aws", region: "us-gov-west-1", hosts: [] });
  expect(readCloudTarget("create a vm on hcloud at nbg1")).toEqual({ provider: "hetzner", region: "nbg1", hosts: [] });
  expect(readCloudTarget("create a vm called c1 on hz-test")).toEqual({ hosts: ["hz-test"] });
});

test("a provider word inside a name, or without a preposition or noun, is no target", () => {
  expect(readCloudTarget("delete the vm aws-test")).toBeUndefined();
  expect(readCloudTarget("create a vm called hetzner-box")).toBeUndefined();
  expect(readCloudTarget("create a vm called eu-west-1")).toBeUndefined();
  // "sin" and "ash" count only as a location after in/at/region.
  expect(readCloudTarget("create a vm called ash")).toBeUndefined();
});

test("the words of 'on host X' and provider words are never host candidates", () => {
  expect(readCloudTarget("create a vm called web02 on host lab2")).toBeUndefined();
  expect(readCloudTarget("put a vm named e on hetzner cloud in the region fsn1")).toEqual({ provider: "hetzner", region: "fsn1", hosts: [] });
});

test("Equinix is refused by name with the date it was shut down; the others are not", () => {
  expect(retiredProviderMessage(readCloudTarget("create a vm on equinix metal"))).toMatch(/^Equinix Metal was shut down on 2026-06-30/);
  expect(retiredProviderMessage(readCloudTarget("create a vm on aws"))).toBeUndefined();
  expect(retiredProviderMessage(undefined)).toBeUndefined();
});
