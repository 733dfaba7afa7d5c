#!/usr/bin/env python3
"""Renew a certificate of this CA for the holder of its key: `step ca renew`'s model for cfssl.

multirootca signs only for holders of the CA's auth key, which no lab member may hold. This
service lets a member renew the certificate it already has, and nothing more:

- TLS with a client certificate, verified against the CA's root (expired: refused by TLS);
- POST /renew with a CSR whose public key is the client certificate's and whose subject is
  exactly CN=<the client certificate's CN>: the same key, so only the key's holder gets a usable
  certificate;
- the new certificate has the client certificate's names (its DNS and IP SANs, never the CSR's)
  and the lifetime of the signing profile (`member`);
- with `dns_server` set (the lab's identity server, ADDRESS or ADDRESS#PORT), the CN must still resolve there to one of
  the certificate's addresses: a member the lab forgot (its A record removed) renews no more.

The signature itself is multirootca's, through its authsign endpoint on 127.0.0.1 with the auth
key (`signer` below, run with the request on stdin). Settings: one JSON file, argv[1]: listen,
port, tls_cert, tls_key, root, signer (argv list), sign_url, auth_key_file, profile, dns_server.
"""
import http.server
import json
import re
import socketserver
import ssl
import subprocess
import sys

MAX_CSR = 16384


def openssl(args: list[str], data: bytes) -> str:
    r = subprocess.run(["openssl", *args], input=data, capture_output=True, check=False)
    if r.returncode != 0:
        raise ValueError(r.stderr.decode(errors="replace").strip()[:200] or "openssl failed")
    return r.stdout.decode()


def resolves(dns_server: str, name: str) -> set[str]:
    """The A records of a name at one DNS server (ADDRESS, or ADDRESS#PORT)."""
    address, _, port = dns_server.partition("#")
    r = subprocess.run(
        ["dig", "+short", "+time=3", "+tries=2", "-p", port or "53", "@" + address, name, "A"],
        capture_output=True, text=True, check=False,
    )
    return {line.strip() for line in r.stdout.splitlines() if re.fullmatch(r"[0-9.]+", line.strip())}


class Refused(Exception):
    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code = code


def renew(conf: dict, peer: dict, peer_der: bytes, csr: bytes) -> str:
    """The new certificate (PEM) for a client certificate and a CSR; Refused otherwise."""
    subject = dict(x[0] for x in peer.get("subject", ()))
    cn = subject.get("commonName", "")
    if not re.fullmatch(r"[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?", cn):
        raise Refused(403, "the client certificate has no usable CN")
    sans = peer.get("subjectAltName", ())
    names = [v for k, v in sans if k == "DNS"]
    addresses = [v for k, v in sans if k == "IP Address"]
    if cn not in names:
        raise Refused(403, f"the client certificate's names do not include its CN {cn}")
    try:
        openssl(["req", "-noout", "-verify"], csr)
        csr_key = openssl(["req", "-noout", "-pubkey"], csr)
        csr_subject = openssl(["req", "-noout", "-subject", "-nameopt", "RFC2253"], csr).strip()
    except ValueError as e:
        raise Refused(400, f"not a valid certificate request: {e}") from None
    cert_key = openssl(["x509", "-inform", "DER", "-noout", "-pubkey"], peer_der)
    if csr_key != cert_key:
        raise Refused(403, "the request's key is not the client certificate's (renewal keeps the key)")
    if csr_subject != f"subject=CN={cn}":
        raise Refused(403, f"the request's subject is not CN={cn}")
    if conf.get("dns_server"):
        found = resolves(conf["dns_server"], cn)
        if not found & set(addresses):
            raise Refused(403, f"{cn} is not in the lab's DNS at any of {', '.join(addresses) or 'its addresses'}: not renewed")
    with open(conf["auth_key_file"], encoding="utf-8") as f:
        key = f.read().strip()
    request = {
        "url": conf["sign_url"], "cafile": conf["root"], "key": key, "csr": csr.decode(),
        "hosts": names + addresses, "profile": conf.get("profile", "member"),
    }
    r = subprocess.run(conf["signer"], input=json.dumps(request), capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise Refused(502, r.stderr.strip()[:300] or "the CA did not sign")
    return r.stdout


class Handler(http.server.BaseHTTPRequestHandler):
    conf: dict = {}
    # A client that stalls (in the TLS handshake too, which runs in the request's thread) is dropped.
    timeout = 30

    def answer(self, code: int, body: str, kind: str = "text/plain") -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        if self.path != "/renew":
            self.answer(404, "no such endpoint (POST /renew)\n")
            return
        length = int(self.headers.get("Content-Length") or 0) if (self.headers.get("Content-Length") or "0").isdigit() else 0
        if length <= 0 or length > MAX_CSR:
            self.answer(400, "the body is one PEM certificate request\n")
            return
        csr = self.rfile.read(length)
        peer = self.connection.getpeercert()
        der = self.connection.getpeercert(binary_form=True)
        try:
            cert = renew(self.conf, peer, der, csr)
        except Refused as e:
            self.log_message("refused %s: %s", dict(x[0] for x in peer.get("subject", ())).get("commonName", "?"), e)
            self.answer(e.code, f"{e}\n")
            return
        self.log_message("renewed %s", dict(x[0] for x in peer["subject"])["commonName"])
        self.answer(200, cert, "application/x-pem-file")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        conf = json.load(f)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(conf["tls_cert"], conf["tls_key"])
    ctx.load_verify_locations(conf["root"])
    ctx.verify_mode = ssl.CERT_REQUIRED
    Handler.conf = conf
    server = Server((conf.get("listen", "0.0.0.0"), int(conf["port"])), Handler)
    server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(f"renewing certificates of {conf['root']} on port {conf['port']}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
