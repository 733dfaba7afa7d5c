#!/usr/bin/python3
"""Users and groups of the Samba AD domain, from a JSON request on stdin (never argv, so no process
list shows a password). Prints "changed" or "unchanged".

  {"action": "add_user", "username", "full_name", "groups": [...], "ssh_public_key", "password"}
      the user exists with that display name, exactly those groups (made when missing) besides its
      primary group, and that SSH key (altSecurityIdentities, "" for none); the password is set
      only when the user is created, never on an existing user.
  {"action": "remove_user", "username"}   the user is gone.
  {"action": "add_group", "group"}        the group exists.
"""
import json
import re
import sys

import ldb
import samba.param
from samba.auth import system_session
from samba.samdb import SamDB

NAME = re.compile(r"^[a-z_][a-z0-9_.-]{0,19}$")
GROUP = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


def one(db, expression, attrs):
    found = db.search(base=db.domain_dn(), scope=ldb.SCOPE_SUBTREE, expression=expression, attrs=attrs)
    return found[0] if len(found) else None


def ensure_group(db, group):
    if one(db, "(&(objectClass=group)(sAMAccountName=%s))" % ldb.binary_encode(group), ["dn"]) is not None:
        return False
    db.newgroup(group)
    return True


def set_attr(db, dn, attr, value, current):
    """Replace attr with value ("" removes it); True when it differed."""
    if (current or "") == value:
        return False
    m = ldb.Message(dn)
    if value:
        m[attr] = ldb.MessageElement(value, ldb.FLAG_MOD_REPLACE, attr)
    else:
        m[attr] = ldb.MessageElement([], ldb.FLAG_MOD_DELETE, attr)
    db.modify(m)
    return True


def first(msg, attr):
    return str(msg[attr][0]) if attr in msg else ""


def add_user(db, req):
    user, full_name, key = req["username"], req.get("full_name", ""), req.get("ssh_public_key", "")
    groups = req.get("groups", [])
    if not all(GROUP.match(g) for g in groups):
        raise ValueError("a group name is invalid")
    changed = False
    expr = "(&(objectClass=user)(sAMAccountName=%s))" % ldb.binary_encode(user)
    if one(db, expr, ["dn"]) is None:
        if not req.get("password"):
            raise ValueError("no initial password for a new user")
        db.newuser(user, req["password"], useusernameascn=True)
        changed = True
    msg = one(db, expr, ["displayName", "altSecurityIdentities", "memberOf"])
    changed |= set_attr(db, msg.dn, "displayName", full_name, first(msg, "displayName"))
    changed |= set_attr(db, msg.dn, "altSecurityIdentities", key, first(msg, "altSecurityIdentities"))
    for g in groups:
        changed |= ensure_group(db, g)
    current = set()
    for dn in msg.get("memberOf") or []:
        g = one(db, "(distinguishedName=%s)" % ldb.binary_encode(str(dn)), ["sAMAccountName"])
        if g is not None:
            current.add(first(g, "sAMAccountName"))
    for g in sorted(set(groups) - current):
        db.add_remove_group_members(g, [user], add_members_operation=True)
        changed = True
    for g in sorted(current - set(groups)):
        db.add_remove_group_members(g, [user], add_members_operation=False)
        changed = True
    return changed


def remove_user(db, req):
    if one(db, "(&(objectClass=user)(sAMAccountName=%s))" % ldb.binary_encode(req["username"]), ["dn"]) is None:
        return False
    db.deleteuser(req["username"])
    return True


def main():
    req = json.loads(sys.stdin.read())
    action = req.get("action")
    if action in ("add_user", "remove_user") and not NAME.match(req.get("username", "")):
        raise ValueError("the user name is invalid")
    if action == "add_group" and not GROUP.match(req.get("group", "")):
        raise ValueError("the group name is invalid")
    lp = samba.param.LoadParm()
    lp.load_default()
    db = SamDB(url=lp.samdb_url(), session_info=system_session(), lp=lp)
    if action == "add_user":
        changed = add_user(db, req)
    elif action == "remove_user":
        changed = remove_user(db, req)
    elif action == "add_group":
        changed = ensure_group(db, req["group"])
    else:
        raise ValueError("unknown action %r" % action)
    print("changed" if changed else "unchanged")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # the message names the failure, never the password
        sys.exit("svc-samba-user: %s" % e)
