#!/usr/bin/env bash
# Build (or reuse, when up to date) the Debian 12 image the catalogue's products run on, and register
# it as `debian12`. Same layout as the test image (direct kernel boot, SSH key on the kernel command
# line), with every package of the Debian implementations baked in, because guests reach no package
# mirror: the identity server (Samba AD DC), the CA (cfssl), the registry (distribution) and the
# router (nftables, dnsmasq), and a lab member's domain join (realmd, adcli, sssd; role lab_member). Their services are masked until a role configures them; nothing made
# per deployment (keys, domain SIDs, CA keys) is in the image.
#
# Usage: build-debian12-image.sh [build-test-image.sh options, e.g. --force, --images-dir DIR]
set -euo pipefail
cd "$(dirname "$0")"

# Base tools the roles use: the apt module needs python3-apt; checks use dig and curl.
BASE=python3-apt,ca-certificates,openssl,curl,bind9-dnsutils,acl,attr,less
# Identity: Samba 4.17 AD DC with its Recommends (debootstrap does not follow Recommends).
IDENTITY=samba,samba-ad-dc,samba-ad-provision,samba-dsdb-modules,samba-vfs-modules,winbind,libnss-winbind,libpam-winbind,krb5-user,krb5-config,ldb-tools,python3-markdown
CA=golang-cfssl
REGISTRY=docker-registry,apache2-utils
ROUTER=nftables,dnsmasq
# A lab member (role lab_member): realmd/adcli join the AD domain, sssd serves its accounts (the
# AD provider's LDAP binds with GSSAPI: the SASL module), PAM makes their home directories.
MEMBER=realmd,adcli,sssd,sssd-ad,sssd-ad-common,sssd-common,sssd-krb5,sssd-krb5-common,sssd-tools,libnss-sss,libpam-sss,libsasl2-modules-gssapi-mit,libsss-idmap0,libsss-certmap0,libsss-nss-idmap0
UNITS=samba-ad-dc.service,smbd.service,nmbd.service,winbind.service,docker-registry.service,dnsmasq.service,nftables.service,sssd.service

exec ./build-test-image.sh \
  --name debian12 \
  --out /var/cache/svc/test-image/debian12 \
  --size 4G \
  --extra-packages "$BASE,$IDENTITY,$CA,$REGISTRY,$ROUTER,$MEMBER" \
  --disable-units "$UNITS" \
  --description "Debian 12 (bookworm) with the packages of svc's Debian products baked in: Samba AD DC, cfssl, distribution registry, nftables, dnsmasq, realmd/adcli/sssd" \
  "$@"
