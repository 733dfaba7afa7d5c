import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { decryptVault, readSecretsFile, SecretsFileError } from "../src/cloud/secrets-file";

// The secrets file reader against files made by the real `ansible-vault encrypt` (1.1 and 1.2 with a
// vault id), a plain YAML file, and the ways it can fail, none of which shows a value.
jest.setTimeout(60_000);

const YAML = "vault_hcloud_token: hc-Secret-Token-123\nvault_aws_access_key_id: AKIAEXAMPLE\nvault_aws_secret_access_key: s3cr3t/Key+x\nother: [1, 2]\n";
let dir: string;
let pass: string;

function vaultFile(name: string, password: string, extra: string[] = []): string {
  const f = join(dir, name);
  writeFileSync(f, YAML);
  const pw = join(dir, `${name}.pass`);
  writeFileSync(pw, `${password}\n`);
  execFileSync("ansible-vault", ["encrypt", "--vault-password-file", pw, ...extra, f], { stdio: "pipe" });
  return f;
}

beforeAll(() => {
  dir = mkdtempSync(join(os.tmpdir(), "svc-secrets-"));
  pass = join(dir, "vault.pass");
  writeFileSync(pass, "correct horse battery\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the secrets file reader", () => {
  it("opens a file made by ansible-vault encrypt (1.1) with the password file, as ansible-vault view does", async () => {
    const f = vaultFile("s11.yml", "correct horse battery");
    expect(readFileSync(f, "utf8")).toMatch(/^\$ANSIBLE_VAULT;1\.1;AES256\n/);
    const viewed = execFileSync("ansible-vault", ["view", "--vault-password-file", pass, f], { encoding: "utf8" });
    expect(viewed).toBe(YAML);
    const s = await readSecretsFile({ secretsFile: f, vaultPasswordFile: pass });
    expect(s).toEqual({ vault_hcloud_token: "hc-Secret-Token-123", vault_aws_access_key_id: "AKIAEXAMPLE", vault_aws_secret_access_key: "s3cr3t/Key+x", other: [1, 2] });
  });

  it("opens a 1.2 file with a vault id label, and one whose password file is a script (as ansible runs it)", async () => {
    const f = vaultFile("s12.yml", "correct horse battery", ["--vault-id", `prod@${join(dir, "s12.yml.pass")}`, "--encrypt-vault-id", "prod"]);
    expect(readFileSync(f, "utf8")).toMatch(/^\$ANSIBLE_VAULT;1\.2;AES256;prod\n/);
    expect((await readSecretsFile({ secretsFile: f, vaultPasswordFile: pass })).vault_hcloud_token).toBe("hc-Secret-Token-123");
    const script = join(dir, "pass.sh");
    writeFileSync(script, "#!/bin/sh\necho 'correct horse battery'\n");
    chmodSync(script, 0o700);
    expect((await readSecretsFile({ secretsFile: vaultFile("s-script.yml", "correct horse battery"), vaultPasswordFile: script })).other).toEqual([1, 2]);
  });

  it("reads a plain YAML secrets file, and caches what it read for the process", async () => {
    const f = join(dir, "plain.yml");
    writeFileSync(f, YAML);
    const a = await readSecretsFile({ secretsFile: f });
    writeFileSync(f, "vault_hcloud_token: changed\n");
    expect(await readSecretsFile({ secretsFile: f })).toBe(a);
  });

  it("refuses a wrong password, a missing password setting, a missing file and bad YAML, naming the file and never a value", async () => {
    const f = vaultFile("wrong.yml", "another password");
    const wrong = await readSecretsFile({ secretsFile: f, vaultPasswordFile: pass }).catch((e) => e);
    expect(wrong).toBeInstanceOf(SecretsFileError);
    expect(wrong.message).toBe(`the secrets file ${f} (SVC_SECRETS_FILE): the vault password does not open it (HMAC mismatch)`);
    await expect(readSecretsFile({ secretsFile: f })).rejects.toThrow(/is vault-encrypted and SVC_VAULT_PASSWORD_FILE is not set/);
    await expect(readSecretsFile({ secretsFile: join(dir, "none.yml") })).rejects.toThrow(/cannot read the secrets file .*none\.yml \(SVC_SECRETS_FILE\): ENOENT/);
    const bad = join(dir, "bad.yml");
    writeFileSync(bad, "vault_hcloud_token: hc-Secret-Token-123\n  : [unclosed\n");
    const e = await readSecretsFile({ secretsFile: bad }).catch((x) => x);
    expect(e.message).toMatch(/is not valid YAML/);
    expect(e.message).not.toContain("hc-Secret");
    writeFileSync(join(dir, "list.yml"), "- a\n- b\n");
    await expect(readSecretsFile({ secretsFile: join(dir, "list.yml") })).rejects.toThrow(/is not a mapping/);
  });

  it("rejects a damaged vault body instead of decrypting garbage", () => {
    const text = readFileSync(vaultFile("damaged.yml", "pw"), "utf8");
    const lines = text.split("\n");
    const last = lines.length - 2;
    lines[last] = lines[last]!.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect(() => decryptVault(lines.join("\n"), "pw")).toThrow(/HMAC mismatch|damaged/);
    expect(() => decryptVault("hello", "pw")).toThrow(/not an ansible-vault AES256 file/);
  });
});
