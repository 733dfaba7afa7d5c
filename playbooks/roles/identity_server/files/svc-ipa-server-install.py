#!/usr/bin/python3
"""Run FreeIPA's ipa-server-install with the Directory Manager and admin passwords read from a
root-only JSON file ({"ds_password": ..., "admin_password": ...}), never from the command line.

/usr/sbin/ipa-server-install is only `ServerInstall.run_cli()` (newer releases call it through
`ipa_server_install.run()`), which parses sys.argv. This builds sys.argv in-process and calls the
same entry point, so the process's own command line (/proc/PID/cmdline, ps) never holds a password.
Usage: svc-ipa-server-install SECRETS_FILE [ipa-server-install options, without passwords]"""
import json
import os
import sys

PASSWORD_OPTIONS = ("-p", "-a", "--ds-password", "--admin-password", "--password")


def read_passwords(path):
    """Read the two passwords, refusing a file another user could have written or read."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd) as secrets:
        info = os.fstat(secrets.fileno())
        if info.st_uid != 0 or info.st_mode & 0o077:
            sys.exit("svc-ipa-server-install: %s must be owned by root with mode 0600" % path)
        data = json.load(secrets)
    if not all(isinstance(data.get(k), str) and data[k] for k in ("ds_password", "admin_password")):
        sys.exit("svc-ipa-server-install: %s needs ds_password and admin_password" % path)
    return data["ds_password"], data["admin_password"]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: svc-ipa-server-install SECRETS_FILE [ipa-server-install options]")
    options = sys.argv[2:]
    if any(o in PASSWORD_OPTIONS or o.split("=", 1)[0] in PASSWORD_OPTIONS for o in options):
        sys.exit("svc-ipa-server-install: passwords come from the secrets file, not options")
    ds_password, admin_password = read_passwords(sys.argv[1])
    sys.argv = ["ipa-server-install"] + options + [
        "--ds-password", ds_password, "--admin-password", admin_password]
    from ipaserver.install.ipa_server_install import ServerInstall  # pylint: disable=import-error

    ServerInstall.run_cli()


if __name__ == "__main__":
    main()
