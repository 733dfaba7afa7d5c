import { createHash } from "node:crypto";

// cloud-init's keys_to_console module runs its write-ssh-key-fingerprints helper at the final
// stage; the helper pipes its blocks through `logger -t ec2 --stderr`, so on a console each line
// may come with a prefix (`<14>Dec  2 06:00:01 ec2: `, a kernel timestamp, `cloud-init[812]: `):
//
//   -----BEGIN SSH HOST KEY FINGERPRINTS-----
//   256 SHA256:Xq8… root@ip-10-0-0-5 (ED25519)
//   -----END SSH HOST KEY FINGERPRINTS-----
//   -----BEGIN SSH HOST KEY KEYS-----
//   ssh-ed25519 AAAAC3Nz… root@ip-10-0-0-5
//   -----END SSH HOST KEY KEYS-----
//
// `ssh_key_console_blacklist` / `ssh_fp_console_blacklist` leave types out of either block, and
// `ssh: {emit_keys_to_console: false}` prints neither. Lines of other writers can land between
// the markers on a serial console: only whole, well-formed entries count.

/** The host keys a console printed: `type base64` lines, and `SHA256:…` fingerprints. */
export interface ConsoleKeys {
  keys: string[];
  fingerprints: string[];
}

const KEY_TYPES = "ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521|sk-ssh-ed25519@openssh\\.com|sk-ecdsa-sha2-nistp256@openssh\\.com";
const KEY = new RegExp(`(?:^|\\s)(${KEY_TYPES}) ([A-Za-z0-9+/]+={0,3})(?=\\s|$)`);
const FINGERPRINT = /(?:^|\s)\d+ (SHA256:[A-Za-z0-9+/]{43})(?=\s|$)/;

/** The lines between the last complete BEGIN/END pair of a block (a console shows every boot's; the last is this boot's). */
function lastBlock(lines: readonly string[], name: string): string[] | null {
  const begin = `-----BEGIN ${name}-----`;
  const end = `-----END ${name}-----`;
  let found: string[] | null = null;
  let open: string[] | null = null;
  for (const l of lines) {
    if (l.includes(begin)) open = [];
    else if (l.includes(end) && open) {
      found = open;
      open = null;
    } else open?.push(l);
  }
  return found;
}

/** The number of length-prefixed fields of each key type's wire format (RFC 4253, 5656, 8709; OpenSSH's PROTOCOL.u2f). */
const FIELDS: Record<string, number> = {
  "ssh-ed25519": 2,
  "ssh-rsa": 3,
  "ecdsa-sha2-nistp256": 3,
  "ecdsa-sha2-nistp384": 3,
  "ecdsa-sha2-nistp521": 3,
  "sk-ssh-ed25519@openssh.com": 3,
  "sk-ecdsa-sha2-nistp256@openssh.com": 4,
};

/** Whether `b64` is a whole SSH public key of `type`: its fields, the first the type's name, fill the blob exactly (a key cut short does not). */
function wellFormed(type: string, b64: string): boolean {
  const blob = Buffer.from(b64, "base64");
  if (blob.toString("base64").replace(/=+$/, "") !== b64.replace(/=+$/, "")) return false;
  let at = 0;
  const fields: Buffer[] = [];
  while (at + 4 <= blob.length) {
    const n = blob.readUInt32BE(at);
    if (at + 4 + n > blob.length) return false;
    fields.push(blob.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return at === blob.length && fields.length === FIELDS[type] && fields[0]!.toString("latin1") === type;
}

/** The host keys and fingerprints cloud-init printed in `text` (a console's output); empty lists when it printed none. */
export function parseConsoleHostKeys(text: string): ConsoleKeys {
  const lines = text.split(/\r?\n/);
  const keys = (lastBlock(lines, "SSH HOST KEY KEYS") ?? []).flatMap((l) => {
    const m = KEY.exec(l);
    return m && wellFormed(m[1]!, m[2]!) ? [`${m[1]} ${m[2]}`] : [];
  });
  const fingerprints = (lastBlock(lines, "SSH HOST KEY FINGERPRINTS") ?? []).flatMap((l) => {
    const m = FINGERPRINT.exec(l);
    return m ? [m[1]!] : [];
  });
  return { keys: [...new Set(keys)], fingerprints: [...new Set(fingerprints)] };
}

/** The SHA256 fingerprint of a `type base64` key, as ssh-keygen -l prints it. */
export function keyFingerprint(key: string): string {
  const b64 = key.trim().split(/\s+/)[1] ?? "";
  return `SHA256:${createHash("sha256").update(Buffer.from(b64, "base64")).digest("base64").replace(/=+$/, "")}`;
}
