import { userInfo } from "node:os";
import { VM_DEFAULTS } from "@svc/config";
import { defaultPubkeyPaths, vmSettingsFromEnv } from "./settings";

describe("VM CLI settings", () => {
  test("directories default to the same values the services use", () => {
    const s = vmSettingsFromEnv({});
    expect(s.imagesDir).toBe(VM_DEFAULTS.imagesDir);
    expect(s.disksDir).toBe(VM_DEFAULTS.disksDir);
  });

  test("default public keys: ed25519, then ecdsa, then rsa, in $HOME first, then the account's home, then the sudo user's", () => {
    const paths = defaultPubkeyPaths({ HOME: "/home/alice/", SUDO_USER: "root" });
    expect(paths.slice(0, 3)).toEqual(["/home/alice/.ssh/id_ed25519.pub", "/home/alice/.ssh/id_ecdsa.pub", "/home/alice/.ssh/id_rsa.pub"]);
    const account = userInfo().homedir;
    if (account !== "/home/alice") expect(paths).toContain(`${account}/.ssh/id_ed25519.pub`);
    expect(paths).toContain("/root/.ssh/id_ed25519.pub");
    expect(new Set(paths).size).toBe(paths.length);
  });

  test("SVC_VM_SSH_PUBKEY replaces the defaults; a SUDO_USER that is not a user name is ignored", () => {
    expect(vmSettingsFromEnv({ SVC_VM_SSH_PUBKEY: "/etc/svc/vm.pub" }).sshPubkeyPaths).toEqual(["/etc/svc/vm.pub"]);
    expect(defaultPubkeyPaths({ HOME: "/h", SUDO_USER: "../x" }).some((p) => p.includes(".."))).toBe(false);
  });
});
