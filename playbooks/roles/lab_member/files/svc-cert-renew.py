#!/usr/bin/env python3
"""Renew the lab member's certificate when a third of its lifetime or less is left (--force: now).

Reads /etc/svc/cert-renew.json: url (the CA's renewal service, https://HOST:PORT), cafile (the
lab CA's root), cert, key, csr (paths). The member proves who it is with its current certificate
and key (TLS client authentication) and sends its request, made with the same key; the CA answers
with a certificate for the same names. The member holds no key of the CA's. Prints what it did.
"""
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

CONF = "/etc/svc/cert-renew.json"


def lifetime(cert: str) -> tuple[float, float]:
    d = ssl._ssl._test_decode_cert(cert)  # the stdlib's own PEM decoder
    return ssl.cert_time_to_seconds(d["notBefore"]), ssl.cert_time_to_seconds(d["notAfter"])


def main(argv: list[str]) -> int:
    conf_file = os.environ.get("SVC_CERT_RENEW_CONF", CONF)
    with open(conf_file, encoding="utf-8") as f:
        c = json.load(f)
    start, end = lifetime(c["cert"])
    left = end - time.time()
    if "--force" not in argv and left > (end - start) / 3:
        print(f"{c['cert']}: {int(left // 3600)} hours left of {int((end - start) // 3600)}, not renewed")
        return 0
    ctx = ssl.create_default_context(cafile=c["cafile"])
    ctx.load_cert_chain(c["cert"], c["key"])
    with open(c["csr"], "rb") as f:
        csr = f.read()
    req = urllib.request.Request(
        c["url"].rstrip("/") + "/renew", data=csr, headers={"Content-Type": "application/pkcs10"}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=60) as resp:
            pem = resp.read().decode()
    except urllib.error.HTTPError as e:
        sys.stderr.write(f"the CA refused the renewal: HTTP {e.code} {e.read()[:300].decode(errors='replace')}\n")
        return 1
    except (urllib.error.URLError, OSError) as e:
        sys.stderr.write(f"the CA at {c['url']} did not answer: {e}\n")
        return 1
    if "BEGIN CERTIFICATE" not in pem:
        sys.stderr.write("the CA's answer is not a certificate\n")
        return 1
    tmp = c["cert"] + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(pem.strip() + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, c["cert"])
    start, end = lifetime(c["cert"])
    print(f"{c['cert']}: renewed, valid until {time.strftime('%Y-%m-%d %H:%M', time.gmtime(end))} UTC")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
