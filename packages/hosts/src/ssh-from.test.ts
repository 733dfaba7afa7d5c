import { parseProviderSettings, sshFromOf } from "./providers";

// Where svc's SSH reaches a cloud host's instances from: what a product VM's firewall opens 22 to.
test("the host's ssh_from wins; else the bastion's IP as a /32 or /128; a bastion by name or none leaves it unknown", () => {
  expect(sshFromOf({ ssh_from: "198.51.100.7/32, 2001:db8::/48", bastion: "root@192.0.2.5" })).toEqual(["198.51.100.7/32", "2001:db8::/48"]);
  expect(sshFromOf({ bastion: "root@192.0.2.5:2222" })).toEqual(["192.0.2.5/32"]);
  expect(sshFromOf({ bastion: "root@[2001:db8::5]:22" })).toEqual(["2001:db8::5/128"]);
  expect(sshFromOf({ bastion: "root@bastion.example.org" })).toEqual([]);
  expect(sshFromOf({})).toEqual([]);
});

test("ssh_from is CIDRs separated by commas on every provider; anything else is refused naming the setting", () => {
  expect(parseProviderSettings("hetzner", { location: "fsn1", ssh_from: "198.51.100.7/32,2001:db8::/48" })).toEqual({
    settings: { location: "fsn1", ssh_from: "198.51.100.7/32,2001:db8::/48" },
  });
  expect(parseProviderSettings("gcp", { project: "my-project-123", zone: "europe-west1-b", ssh_from: "198.51.100.7/32" })).toMatchObject({
    settings: { ssh_from: "198.51.100.7/32" },
  });
  expect(parseProviderSettings("aws", { region: "eu-west-1", ssh_from: "198.51.100.7" })).toEqual({
    problems: ["ssh_from: CIDRs separated by commas, such as 198.51.100.7/32"],
  });
});
