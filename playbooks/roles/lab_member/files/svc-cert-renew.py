#!/usr/bin/env python3
"""Renew the lab member's certificate from the lab CA when a third of its lifetime or less is left.

Reads /etc/svc/cert-renew.json (root, 0600): url (the CA, https://HOST:PORT), cafile (the lab
CA's root), key_file (the CA's auth key, hex), csr, cert (paths), hosts (the names). The request
goes to cfssl_authsign.py on stdin, so the key is in no argument list. Prints what it did.
"""
import json
import os
import ssl
import subprocess
import sys
import time

CONF = "/etc/svc/cert-renew.json"
SIGNER = "/usr/local/lib/svc/cfssl_authsign.py"


def lifetime(cert: str) -> tuple[float, float]:
    d = ssl._ssl._test_decode_cert(cert)  # the stdlib's own PEM decoder
    return ssl.cert_time_to_seconds(d["notBefore"]), ssl.cert_time_to_seconds(d["notAfter"])


def main() -> int:
    with open(CONF, encoding="utf-8") as f:
        c = json.load(f)
    if os.path.exists(c["cert"]):
        start, end = lifetime(c["cert"])
        left = end - time.time()
        if left > (end - start) / 3:
            print(f"{c['cert']}: {int(left // 86400)} days left of {int((end - start) // 86400)}, not renewed")
            return 0
    with open(c["key_file"], encoding="utf-8") as f:
        key = f.read().strip()
    with open(c["csr"], encoding="utf-8") as f:
        csr = f.read()
    req = json.dumps({"url": c["url"], "cafile": c["cafile"], "key": key, "csr": csr, "hosts": c["hosts"]})
    r = subprocess.run([sys.executable, SIGNER], input=req, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        return 1
    tmp = c["cert"] + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(r.stdout)
    os.chmod(tmp, 0o644)
    os.replace(tmp, c["cert"])
    print(f"{c['cert']}: renewed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
