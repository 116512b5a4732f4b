#!/usr/bin/env bash
# Inside a throwaway Debian 12 root (run by .ci/install, as root, in a network namespace of
# its own with only loopback): build the Debian package from the tree in /root/src/ctrsa,
# install it, check that it enabled nothing, enable ctrsa with ctrsa-config, and run real
# programs through it with the trace proving where every private-key operation ran:
#   - nginx (master as root loads the key, two pre-forked workers as www-data do the
#     handshakes), fetched by curl over TLS 1.3 and over TLS 1.2 with RSA key exchange;
#   - haproxy with ssl-mode-async (each handshake's private-key operation in an ASYNC job);
#   - python3's ssl module (a TLS 1.3 handshake, server and client in one process) and
#     python3-cryptography (sign, verify, encrypt, decrypt);
# reinstall the same package and upgrade to a rebuilt one (and back) while enabled; then
# disable, remove the package, and compare /etc/ssl and the installed folders with what
# they were before; then once more, removing the package while enabled (its prerm disables
# ctrsa); then with lines added after ctrsa's, where disable refuses: the removal must stop
# with the package installed, and succeed once the lines are gone. `openssl version` must
# work after every step, and inside the package's maintainer scripts during the upgrades.
# Prints the time of each part.
set -euo pipefail
src=/root/src/ctrsa
work=/tmp/ctrsa-pkg
trace=/var/log/ctrsa
port=8443
failures=0
checks=0

part_start=$SECONDS
part() {
    printf '\n== %s (previous part: %ds)\n' "$1" $((SECONDS - part_start))
    part_start=$SECONDS
}
ok() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }
check() { # check NAME CMD...: CMD must succeed
    local name=$1
    shift
    if "$@" > "$work/out" 2>&1; then ok "$name"; else fail "$name"; sed 's/^/    /' "$work/out"; fi
}
# count PATTERN FILE...: lines of FILEs that are exactly PATTERN (0 if none, no files).
count() {
    local p=$1
    shift
    [ $# -gt 0 ] || { echo 0; return; }
    cat "$@" 2>/dev/null | grep -cx -- "$p" || true
}
expect_count() { # expect_count NAME WANT GOT
    if [ "$3" -eq "$2" ]; then ok "$1: $3"; else fail "$1: $3, expected $2"; fi
}
# openssl_works STEP: openssl starts with the system configuration (a configuration that
# includes a missing file, or names a missing section, stops every OpenSSL program).
openssl_works() {
    if openssl version > "$work/out" 2>&1 && openssl list -providers >> "$work/out" 2>&1; then
        ok "openssl works $1"
    else fail "openssl fails $1:"; sed 's/^/    /' "$work/out"; fi
}
# installed: dpkg has the package unpacked and configured (whatever was asked of it).
installed() { dpkg-query -W -f='${db:Status-Abbrev}' ctrsa 2>/dev/null | grep -q '^.i'; }

rm -rf "$work" "$trace"
mkdir -p "$work"
modulesdir=$(pkg-config --variable=modulesdir libcrypto)
cnf=$(readlink -f /usr/lib/ssl/openssl.cnf)
# The state a removal must restore: every file and link under /etc/ssl and the folders
# the package installs into (/usr/libexec: ctrsa-config's reader), with mode, owner and
# checksum.
snapshot() {
    local d dirs=()
    for d in /etc/ssl "$modulesdir" /usr/share/ctrsa /usr/share/doc/ctrsa /usr/sbin /usr/libexec; do
        if [ -e "$d" ]; then dirs+=("$d"); else echo "absent: $d"; fi
    done
    find "${dirs[@]}" \( -type f -o -type l -o -type d \) -printf '%p %M %u:%g %l\n' | sort
    find "${dirs[@]}" -type f -exec sha256sum {} + | sort
}

part "build the package (dpkg-buildpackage -b -uc -us)"
rm -f /root/src/ctrsa_*.deb /root/src/ctrsa_*.buildinfo /root/src/ctrsa_*.changes
(cd "$src" && dpkg-buildpackage -b -uc -us) > "$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log"; echo "FAIL: dpkg-buildpackage"; exit 1; }
deb=$(ls /root/src/ctrsa_*.deb)
ok "built $(basename "$deb")"
dpkg-deb -c "$deb" | awk '{ print "    " $6 }'

part "install it (dpkg -i): nothing enabled by itself"
snapshot > "$work/before"
cp "$cnf" "$work/openssl.cnf.orig"
openssl_works "before installation"
check "dpkg -i" dpkg -i "$deb"
openssl_works "after installation"
check "the module is where pkg-config --variable=modulesdir libcrypto says" test -f "$modulesdir/ctrsa.so"
check "the snippet names it" grep -qx "module = $modulesdir/ctrsa.so" /usr/share/ctrsa/ctrsa.cnf
reader=$(sed -n 's/^cnf_dump=${CTRSA_CNF_DUMP:-\(.*\)}$/\1/p' /usr/sbin/ctrsa-config)
check "ctrsa-config's reader of openssl.cnf is installed (${reader:-not named})" test -x "${reader:-/nonexistent}"
check "openssl.cnf untouched by the installation" cmp "$cnf" "$work/openssl.cnf.orig"
rc=0
ctrsa-config status > "$work/out" 2>&1 || rc=$?
if [ $rc -eq 1 ]; then ok "ctrsa-config status: not enabled"; else fail "status after install: exit $rc"; cat "$work/out"; fi
if openssl list -providers | grep -q '^  ctrsa$'; then fail "ctrsa loaded before enable"; else ok "openssl list -providers: no ctrsa before enable"; fi

part "a key and a certificate for localhost (default provider, before enable)"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost -days 2 2> /dev/null
openssl pkey -in "$work/key.pem" -pubout -out "$work/pub.pem"
chmod 644 "$work/key.pem"   # only nginx's master (root) reads it; python runs as root too
ok "2048-bit key and self-signed certificate"

part "enable (ctrsa-config enable --trace '$trace/%p'; it makes the folder)"
check "ctrsa-config enable" ctrsa-config enable --trace "$trace/%p"
cp "$work/out" "$work/enable.out"
cat "$work/enable.out"
openssl_works "after enable"
# nginx workers (www-data) create their own trace files in it; nobody but root lists it.
if grep -qx "ctrsa-config: made the trace folder $trace (root:root, mode 1733): .*" "$work/enable.out" &&
    [ "$(stat -c '%U:%G %a' "$trace")" = "root:root 1733" ]; then
    ok "enable made $trace, root:root, mode 1733, and said so"
else fail "the trace folder: $(stat -c '%U:%G %a' "$trace" 2>&1)"; fi
check "ctrsa-config status: enabled and active" ctrsa-config status
cat "$work/out"
openssl list -providers > "$work/list"
if awk '/^  [^ ]/ { c = $1 } /status: active/ { a[c] = 1 } END { exit !(a["ctrsa"] && a["default"]) }' "$work/list"
then ok "openssl list -providers: ctrsa and default active"; else fail "providers:"; cat "$work/list"; fi
rm -f "$trace"/*   # the checks above ran no RSA operation, but start clean anyway

part "nginx: master loads the key, two workers serve TLS on 127.0.0.1:$port"
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<EOF
user www-data;
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http {
    access_log $work/nginx/access.log;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ciphers AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;
        ssl_session_cache off;
        ssl_session_tickets off;
        location / { return 200 "served by nginx\n"; }
    }
}
EOF
check "nginx starts" nginx -c "$work/nginx/nginx.conf"
for _ in $(seq 50); do [ -s "$work/nginx/nginx.pid" ] && break; sleep 0.1; done
master=$(cat "$work/nginx/nginx.pid")
workers=$(awk -v m="$master" '$1 == "PPid:" && $2 == m { split(FILENAME, f, "/"); print f[3] }' \
    /proc/[0-9]*/status 2>/dev/null | sort -n | tr '\n' ' ')
echo "   master pid $master, worker pids $workers"
[ "$(echo $workers | wc -w)" -eq 2 ] && ok "two worker processes" || fail "workers: '$workers'"

fetch() { # fetch NAME CURL-OPTIONS...: one fetch; curl's -v says what was negotiated
    curl -sS -v --resolve "localhost:$port:127.0.0.1" --cacert "$work/cert.pem" "${@:2}" \
        "https://localhost:$port/" > "$work/body" 2> "$work/curl.err" &&
        grep -qx 'served by nginx' "$work/body"
}
n=3
for i in $(seq $n); do
    if fetch tls13 --tlsv1.3 && grep -q 'SSL connection using TLSv1.3' "$work/curl.err"; then
        ok "curl over TLS 1.3 ($i/$n): $(grep -o 'SSL connection using .*' "$work/curl.err")"
    else fail "curl TLS 1.3"; sed 's/^/    /' "$work/curl.err"; fi
done
for i in $(seq $n); do
    if fetch tls12 --tls-max 1.2 --ciphers AES128-GCM-SHA256 &&
        grep -q 'SSL connection using TLSv1.2 / AES128-GCM-SHA256' "$work/curl.err"; then
        ok "curl over TLS 1.2, RSA key exchange ($i/$n): $(grep -o 'SSL connection using .*' "$work/curl.err")"
    else fail "curl TLS 1.2 RSA kex"; sed 's/^/    /' "$work/curl.err"; fi
done
nginx -c "$work/nginx/nginx.conf" -s quit
for _ in $(seq 50); do kill -0 "$master" 2>/dev/null || break; sleep 0.1; done

part "the trace: nginx's private-key operations ran in ctrsa, in the workers"
ls -l "$trace" | sed 's/^/   /'
wfiles=()
for w in $workers; do [ -f "$trace/$w" ] && wfiles+=("$trace/$w"); done
expect_count "workers: TLS 1.3 CertificateVerify signatures (RSA-PSS) in ctrsa" $n \
    "$(count 'ctrsa: sign bits=2048 pad=pss' "${wfiles[@]}")"
expect_count "workers: TLS 1.2 pre-master decryptions (RSA key exchange) in ctrsa" $n \
    "$(count 'ctrsa: decrypt bits=2048 pad=pkcs1-tls' "${wfiles[@]}")"
expect_count "workers: other trace lines" 0 "$(cat "${wfiles[@]}" /dev/null | grep -cvx \
    'ctrsa: sign bits=2048 pad=pss\|ctrsa: decrypt bits=2048 pad=pkcs1-tls' || true)"
expect_count "master: private-key operations (it only loads the key)" 0 \
    "$(cat "$trace/$master" 2>/dev/null | grep -c 'sign\|decrypt' || true)"
cfiles=()
for f in "$trace"/*; do
    case " $master $workers " in *" $(basename "$f") "*) ;; *) cfiles+=("$f") ;; esac
done
expect_count "curl processes that traced (one per fetch)" $((2 * n)) ${#cfiles[@]}
expect_count "curl: TLS 1.3 signature verifications in ctrsa" $n \
    "$(count 'ctrsa: verify bits=2048 pad=pss' "${cfiles[@]}")"
expect_count "curl: TLS 1.2 pre-master encryptions in ctrsa" $n \
    "$(count 'ctrsa: encrypt bits=2048 pad=pkcs1' "${cfiles[@]}")"

part "haproxy with ssl-mode-async: private-key operations inside OpenSSL's ASYNC jobs"
# Each handshake's private-key operation runs in an ASYNC job, on a 32 KiB stack that
# OpenSSL allocates on the heap (ctrsa once overwrote the heap below it: SIGSEGV at the
# first handshake).
rm -f "$trace"/*
mkdir -p "$work/haproxy"
cat "$work/cert.pem" "$work/key.pem" > "$work/haproxy/both.pem"
cat > "$work/haproxy/haproxy.cfg" <<HAPROXY
global
    ssl-mode-async
    maxconn 64
defaults
    mode http
    timeout connect 5s
    timeout client 5s
    timeout server 5s
frontend tls
    bind 127.0.0.1:$port ssl crt $work/haproxy/both.pem
    http-request return status 200 content-type text/plain string "served by haproxy"
HAPROXY
haproxy -f "$work/haproxy/haproxy.cfg" -db > "$work/haproxy/log" 2>&1 &
hpid=$!
for _ in $(seq 50); do
    curl -s -o /dev/null --max-time 1 -k "https://127.0.0.1:$port/" && break
    sleep 0.1
done
probes=$(count 'ctrsa: sign bits=2048 pad=pss' "$trace/$hpid")   # the readiness probe's
hn=10
hgot=0
for _ in $(seq $hn); do
    if curl -sS --max-time 5 --resolve "localhost:$port:127.0.0.1" --cacert "$work/cert.pem" \
        "https://localhost:$port/" 2> "$work/curl.err" | grep -qx 'served by haproxy'; then
        hgot=$((hgot + 1))
    fi
done
expect_count "haproxy: fetches served" $hn $hgot
if kill -0 "$hpid" 2> /dev/null; then ok "haproxy still running"; else
    fail "haproxy died"; sed 's/^/    /' "$work/haproxy/log"; fi
kill "$hpid" 2> /dev/null || true
wait "$hpid" 2> /dev/null || true
expect_count "haproxy: TLS 1.3 CertificateVerify signatures in ctrsa" $hn \
    $(( $(count 'ctrsa: sign bits=2048 pad=pss' "$trace/$hpid") - probes ))

part "python3: ssl handshake and python3-cryptography, through ctrsa"
rm -f "$trace"/*
cat > "$work/py.py" <<'EOF'
import os, socket, ssl, sys, threading
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

work = sys.argv[1]
print("pid", os.getpid())
# ssl: a TLS 1.3 server and client in one process (the server signs with the key).
sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
sctx.load_cert_chain(work + "/cert.pem", work + "/key.pem")
cctx = ssl.create_default_context(cafile=work + "/cert.pem")
lsock = socket.create_server(("127.0.0.1", 0))
port = lsock.getsockname()[1]
def serve():
    conn, _ = lsock.accept()
    with sctx.wrap_socket(conn, server_side=True) as s:
        s.sendall(b"hello over " + s.version().encode())
t = threading.Thread(target=serve)
t.start()
with cctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                      server_hostname="localhost") as c:
    msg = c.recv(100).decode()
    assert c.version() == "TLSv1.3", c.version()
    print("ssl:", msg, c.cipher()[0])
t.join()
# cryptography: sign and verify (PSS, PKCS#1 v1.5), encrypt and decrypt (OAEP).
with open(work + "/key.pem", "rb") as f:
    key = serialization.load_pem_private_key(f.read(), password=None)
pub = key.public_key()
data = b"attack at dawn"
pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
sig = key.sign(data, pss, hashes.SHA256())
pub.verify(sig, data, pss, hashes.SHA256())
sig = key.sign(data, padding.PKCS1v15(), hashes.SHA256())
pub.verify(sig, data, padding.PKCS1v15(), hashes.SHA256())
oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
assert key.decrypt(pub.encrypt(data, oaep), oaep) == data
print("cryptography: sign/verify PSS and PKCS#1 v1.5, encrypt/decrypt OAEP: ok")
EOF
if python3 "$work/py.py" "$work" > "$work/py.out" 2>&1; then
    ok "python3 ran"; sed 's/^/   /' "$work/py.out"
else fail "python3"; sed 's/^/    /' "$work/py.out"; fi
pypid=$(awk '$1 == "pid" { print $2 }' "$work/py.out")
pyf=$trace/${pypid:-none}
cat "$pyf" 2>/dev/null | sed 's/^/   trace: /'
expect_count "python ssl: the server's TLS 1.3 signature (PSS) in ctrsa + cryptography's PSS signature" 2 \
    "$(count 'ctrsa: sign bits=2048 pad=pss' "$pyf")"
expect_count "python3-cryptography: PKCS#1 v1.5 signature in ctrsa" 1 "$(count 'ctrsa: sign bits=2048 pad=pkcs1' "$pyf")"
expect_count "python3-cryptography: OAEP decryption in ctrsa" 1 "$(count 'ctrsa: decrypt bits=2048 pad=oaep' "$pyf")"
expect_count "python: PSS verifications in ctrsa (ssl client, cryptography)" 2 \
    "$(count 'ctrsa: verify bits=2048 pad=pss' "$pyf")"
expect_count "python3-cryptography: PKCS#1 v1.5 verification in ctrsa" 1 \
    "$(count 'ctrsa: verify bits=2048 pad=pkcs1' "$pyf")"
expect_count "python3-cryptography: OAEP encryption in ctrsa" 1 "$(count 'ctrsa: encrypt bits=2048 pad=oaep' "$pyf")"

part "upgrade while enabled: the same .deb again, a rebuilt one (newer), and back"
# The rebuilt package: this one with a newer version, and maintainer scripts that record
# whether openssl works when dpkg runs them (the old prerm and postrm run them too when
# it is replaced in turn).
rm -rf "$work/rebuilt"
dpkg-deb -R "$deb" "$work/rebuilt"
sed -i 's/^Version: .*/&+rebuilt1/' "$work/rebuilt/DEBIAN/control"
for s in preinst postinst prerm postrm; do
    f=$work/rebuilt/DEBIAN/$s
    [ -f "$f" ] || printf '#!/bin/sh\nexit 0\n' > "$f"
    sed -i "1a if openssl version > /dev/null 2>\\&1; then echo \"$s \$*: openssl works\"; else echo \"$s \$*: openssl FAILS\"; fi >> $work/maintscripts.log" "$f"
    chmod 755 "$f"
done
dpkg-deb -b "$work/rebuilt" "$work/ctrsa_rebuilt.deb" > /dev/null
rm -f "$work/maintscripts.log"
cp "$cnf" "$work/openssl.cnf.enabled"
check "dpkg -i the same .deb over the installed one" dpkg -i "$deb"
openssl_works "after reinstalling the same .deb"
check "dpkg -i the rebuilt .deb ($(dpkg-deb -f "$work/ctrsa_rebuilt.deb" Version)) over it" dpkg -i "$work/ctrsa_rebuilt.deb"
openssl_works "after the upgrade to the rebuilt .deb"
check "ctrsa-config status: still enabled and active" ctrsa-config status
check "dpkg -i the first .deb again (a downgrade)" dpkg -i "$deb"
openssl_works "after the downgrade"
check "ctrsa-config status: still enabled and active" ctrsa-config status
check "openssl.cnf as enable left it" cmp "$cnf" "$work/openssl.cnf.enabled"
sed 's/^/   maintainer script: /' "$work/maintscripts.log"
# Upgrade: the rebuilt's preinst and postinst; downgrade: its prerm and postrm.
expect_count "maintainer scripts that found openssl working" 4 "$(grep -c ': openssl works$' "$work/maintscripts.log")"
expect_count "maintainer scripts that found openssl failing" 0 "$(grep -c 'FAILS' "$work/maintscripts.log")"

part "disable (ctrsa-config disable) and remove (dpkg -r ctrsa)"
check "ctrsa-config disable" ctrsa-config disable
cp "$work/out" "$work/disable.out"
cat "$work/disable.out"
check "disable says the trace folder stays" grep -q "the trace folder $trace and the trace files in it stay" "$work/disable.out"
check "and it does" test -d "$trace"
openssl_works "after disable"
check "openssl.cnf is byte for byte as before enable" cmp "$cnf" "$work/openssl.cnf.orig"
if openssl list -providers | grep -q '^  ctrsa$'; then fail "ctrsa still loaded"; else ok "openssl list -providers: no ctrsa"; fi
check "dpkg -r ctrsa" dpkg -r ctrsa
openssl_works "after removal"
check "dpkg knows no ctrsa (no conffiles left behind)" \
    sh -c '! dpkg-query -W -f="\${db:Status-Abbrev}" ctrsa 2>/dev/null | grep -q "^[a-z][ic]"'
snapshot > "$work/after"
if cmp -s "$work/before" "$work/after"; then ok "/etc/ssl, $modulesdir, /usr/sbin as before installation"
else fail "the root differs after removal:"; diff "$work/before" "$work/after" | head -20; fi

part "once more: remove while enabled (the package's prerm disables ctrsa)"
check "dpkg -i" dpkg -i "$deb"
check "ctrsa-config enable" ctrsa-config enable
openssl_works "after enable"
check "dpkg -r ctrsa while enabled" dpkg -r ctrsa
grep -i ctrsa "$work/out" | sed 's/^/   /'
openssl_works "after removal"
check "openssl.cnf is byte for byte as before" cmp "$cnf" "$work/openssl.cnf.orig"
snapshot > "$work/after"
if cmp -s "$work/before" "$work/after"; then ok "the root is as before installation"
else fail "the root differs after removal:"; diff "$work/before" "$work/after" | head -20; fi

part "remove while enabled, with lines added after ctrsa's: disable refuses, so dpkg -r stops"
check "dpkg -i" dpkg -i "$deb"
check "ctrsa-config enable" ctrsa-config enable
cp "$cnf" "$work/openssl.cnf.enabled"
echo "# the administrator's own line, added after ctrsa's" >> "$cnf"
rc=0
dpkg -r ctrsa > "$work/dpkg-r.out" 2>&1 || rc=$?
sed 's/^/   /' "$work/dpkg-r.out"
if [ $rc -ne 0 ]; then ok "dpkg -r ctrsa fails (exit $rc)"; else fail "dpkg -r ctrsa succeeded"; fi
check "it says the package was not removed" grep -q '^ctrsa: not removed: ctrsa is enabled in openssl.cnf' "$work/dpkg-r.out"
check "and what to do (edit openssl.cnf, ctrsa-config disable, remove again)" \
    sh -c "grep -q 'edit openssl.cnf' '$work/dpkg-r.out' && grep -q 'run: ctrsa-config disable' '$work/dpkg-r.out' &&
           grep -q 'remove the package again' '$work/dpkg-r.out'"
openssl_works "after the refused removal"
check "the package is still installed" installed
check "the snippet and the module are still there" test -f /usr/share/ctrsa/ctrsa.cnf -a -f "$modulesdir/ctrsa.so"
check "ctrsa-config status: still enabled and active" ctrsa-config status
sed -i '$d' "$cnf"   # the administrator takes his line out again
check "openssl.cnf as enable left it" cmp "$cnf" "$work/openssl.cnf.enabled"
check "dpkg -r ctrsa, now that disable can" dpkg -r ctrsa
openssl_works "after removal"
check "openssl.cnf is byte for byte as before" cmp "$cnf" "$work/openssl.cnf.orig"
snapshot > "$work/after"
if cmp -s "$work/before" "$work/after"; then ok "the root is as before installation"
else fail "the root differs after removal:"; diff "$work/before" "$work/after" | head -20; fi

part "done"
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
