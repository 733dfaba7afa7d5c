#!/usr/bin/python3
"""Make sure an account exists in the Samba AD domain with the password read from stdin and is a
member of Domain Admins. Prints "changed" or "unchanged". The password never reaches argv, so no
process list shows it. Usage: svc-samba-admin USER < password"""
import sys

import samba.param
from samba.auth import system_session
from samba.credentials import Credentials, DONT_USE_KERBEROS
from samba.samdb import SamDB


def password_works(lp, user, password):
    """Bind to the local directory as the user (NTLM over LDAP): the password is current when it works."""
    creds = Credentials()
    creds.guess(lp)
    creds.set_username(user)
    creds.set_password(password)
    creds.set_kerberos_state(DONT_USE_KERBEROS)
    try:
        SamDB(url="ldap://127.0.0.1", credentials=creds, lp=lp)
        return True
    except Exception:  # any bind failure means the password must be set
        return False


def main():
    if len(sys.argv) != 2 or not sys.argv[1].replace("-", "").isalnum():
        sys.exit("usage: svc-samba-admin USER < password")
    user = sys.argv[1]
    password = sys.stdin.readline().rstrip("\n")
    if not password:
        sys.exit("no password on stdin")
    lp = samba.param.LoadParm()
    lp.load_default()
    db = SamDB(url=lp.samdb_url(), session_info=system_session(), lp=lp)
    found = db.search(base=db.domain_dn(), expression="(sAMAccountName=%s)" % user, attrs=["memberOf"])
    changed = False
    if not found:
        db.newuser(user, password)
        changed = True
    elif not password_works(lp, user, password):
        db.setpassword("(sAMAccountName=%s)" % user, password, force_change_at_next_login=False)
        changed = True
    # A lab's admin account must not expire under the default 42-day password age.
    expiry = db.search(base=db.domain_dn(), expression="(sAMAccountName=%s)" % user, attrs=["userAccountControl"])
    if not int(str(expiry[0]["userAccountControl"][0])) & 0x10000:  # DONT_EXPIRE_PASSWORD
        db.setexpiry("(sAMAccountName=%s)" % user, 0, no_expiry_req=True)
        changed = True
    groups = [str(g) for g in (found[0].get("memberOf") or [])] if found else []
    if not any(g.startswith("CN=Domain Admins,") for g in groups):
        db.add_remove_group_members("Domain Admins", [user], add_members_operation=True)
        changed = True
    print("changed" if changed else "unchanged")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # the message names the failure, never the password
        sys.exit("svc-samba-admin: %s" % e)
