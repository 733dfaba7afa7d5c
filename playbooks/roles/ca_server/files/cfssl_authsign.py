#!/usr/bin/env python3
"""Ask a cfssl CA to sign a CSR through its authenticated endpoint (authsign).

Reads one JSON object on stdin (so the key is in no argument list):
  url      the CA's base URL, https://HOST:PORT
  cafile   the CA's root certificate (verifies the CA's TLS certificate)
  key      the HMAC key, hex (the CA's auth key)
  csr      the certificate request, PEM
  hosts    the names and addresses the certificate is for
  label    the CA's signing root label; profile: its signing profile
  body_only  true: print the signed request's body (JSON) instead of posting it, for a client
           that posts it elsewhere (on the CA's own VM, to its 127.0.0.1 port); url and cafile
           are then not used. The body holds the HMAC of this one request, never the key.
Prints the signed certificate (PEM). Exits 1 with a message on stderr when the CA refuses.
"""
import base64
import hashlib
import hmac
import json
import ssl
import sys
import urllib.error
import urllib.request


def main() -> int:
    args = json.load(sys.stdin)
    request = json.dumps(
        {
            "certificate_request": args["csr"],
            "hosts": args["hosts"],
            "label": args.get("label", "primary"),
            "profile": args.get("profile", "server"),
        }
    ).encode()
    token = hmac.new(bytes.fromhex(args["key"]), request, hashlib.sha256).digest()
    body = json.dumps({"token": base64.b64encode(token).decode(), "request": base64.b64encode(request).decode()}).encode()
    if args.get("body_only"):
        sys.stdout.write(body.decode() + "\n")
        return 0
    ctx = ssl.create_default_context(cafile=args["cafile"])
    req = urllib.request.Request(args["url"].rstrip("/") + "/api/v1/cfssl/authsign", data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as resp:
            answer = json.load(resp)
    except urllib.error.HTTPError as e:
        sys.stderr.write(f"the CA refused the request: HTTP {e.code} {e.read()[:300].decode(errors='replace')}\n")
        return 1
    except (urllib.error.URLError, OSError) as e:
        sys.stderr.write(f"the CA at {args['url']} did not answer: {e}\n")
        return 1
    if not answer.get("success"):
        sys.stderr.write(f"the CA refused the request: {json.dumps(answer.get('errors'))[:300]}\n")
        return 1
    sys.stdout.write(answer["result"]["certificate"].strip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
