#!/bin/sh
# Real TLS handshakes through ctrsa: `openssl s_server` with an RSA key and a self-signed
# certificate, `openssl s_client` against it on 127.0.0.1, with ctrsa loaded through
# OPENSSL_CONF (provider.cnf). For each protocol the server's CTRSA_TRACE file must show its
# private-key operation ran in ctrsa:
#   TLS 1.3                          CertificateVerify signed:      "sign ... pad=pss"
#   TLS 1.2 AES128-GCM-SHA256        pre-master decrypted (RSA kex): "decrypt ... pad=pkcs1-tls"
#   TLS 1.2 ECDHE-RSA-AES128-GCM     ServerKeyExchange signed:      "sign ... pad=pss"
#   TLS 1.0, TLS 1.1, DTLS 1.0       ServerKeyExchange signed with MD5-SHA1 (PKCS#1 v1.5
#     ECDHE-RSA-AES128-SHA,          without a DigestInfo):          "sign ... pad=pkcs1"
#     security level 0
# and an RSA-PSS key (its certificate too) for TLS 1.3. Every handshake is run three ways:
# ctrsa server with a default-provider client (interoperability), ctrsa on both sides (the
# client's verify / encrypt traced too), and a default-provider server with a ctrsa client.
# Data must pass both ways: the server runs with -rev (it sends every line back reversed)
# and -naccept 1 (it exits after one connection); the client sends a random token and
# "CLOSE", and must receive the token reversed. s_server has no -rev for DTLS: there the
# client sends the token and closes, and the server must print it (one way).
# TLS 1.0/1.1 and DTLS 1.0 run only where the default provider alone can do them (the
# oracle handshake); where it cannot, the case says "skip" with the reason.
#
# Bounded in time: the port is chosen by the kernel (-accept 127.0.0.1:0; the server prints
# the one it got), every openssl runs under timeout(1), and a server still running at the end
# of a case (or of the script) is killed by its process id. Loopback only.
#
# Usage: tls_test.sh [path to openssl]. Environment (set by meson): CTRSA_MODULE_DIR (holds
# ctrsa.so), CTRSA_SOURCE_ROOT (holds provider.cnf).
. "$(dirname "$0")/common.sh"

conf=$CTRSA_SOURCE_ROOT/provider.cnf
[ -f "$conf" ] || { echo "FAIL: $conf is missing"; exit 1; }
command -v timeout > /dev/null || { echo "FAIL: timeout(1) is needed"; exit 1; }
export CTRSA_MODULE_DIR

STEP_TIMEOUT=20   # seconds for any one openssl command
server_pid=
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2> /dev/null
        wait "$server_pid" 2> /dev/null
        server_pid=
    fi
}
trap 'stop_server; exec 3>&-; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
# A DTLS server's standard input: a FIFO held open here (read-write, so neither open
# blocks), so that s_server neither reads an end of file (it would quit) nor a line.
mkfifo "$tmp/srv.in"
exec 3<> "$tmp/srv.in"

ok() {
    echo "ok: $*"
}

# with_ctrsa TRACE CMD...: run CMD with ctrsa loaded, tracing to TRACE.
with_ctrsa() {
    trace_to=$1
    shift
    OPENSSL_CONF=$conf OPENSSL_MODULES=$CTRSA_MODULE_DIR CTRSA_TRACE=$trace_to "$@"
}
# without_ctrsa TRACE CMD...: the default provider alone (TRACE ignored).
without_ctrsa() {
    shift
    env -u CTRSA_TRACE OPENSSL_CONF=/dev/null "$@"
}

# ---- a key and a self-signed certificate for each server key type ----
for kt in rsa rsa-pss; do
    if ! without_ctrsa - timeout "$STEP_TIMEOUT" "$OPENSSL" req -x509 -newkey "$kt" \
            -pkeyopt rsa_keygen_bits:2048 -nodes -keyout "$tmp/$kt.key" -out "$tmp/$kt.crt" \
            -subj "/CN=localhost" -days 2 > "$tmp/gen.out" 2>&1; then
        fail "cannot make the $kt key and certificate"
        show "$tmp/gen.out"
        exit 1
    fi
done

# has LABEL FILE PATTERN: one check that FILE holds a line matching PATTERN (grep -E).
has() {
    steps=$((steps + 1))
    if grep -Eq "$3" "$2"; then
        ok "$1"
        return 0
    fi
    fail "$1: no line matching '$3' in:"
    show "$2"
    return 1
}
# lacks LABEL FILE PATTERN: one check that no line of FILE matches PATTERN.
lacks() {
    steps=$((steps + 1))
    if grep -Eq "$3" "$2"; then
        fail "$1: unexpected line matching '$3' in:"
        show "$2"
        return 1
    fi
    ok "$1"
}

# handshake NAME KEYTYPE SERVER_WRAPPER CLIENT_WRAPPER CLIENT_OPTIONS...
# One connection: starts the server, waits for its port, runs the client, waits for the
# server to exit. Leaves the outputs in $tmp/srv.out, $tmp/cli.out, $tmp/cli.err and the
# traces in $tmp/srv.trace and $tmp/cli.trace. 0 if both ends succeeded and the data came
# back reversed.
handshake() {
    name=$1 kt=$2 swrap=$3 cwrap=$4
    shift 4
    : > "$tmp/srv.out"
    : > "$tmp/srv.trace"
    : > "$tmp/cli.trace"
    case " $* " in
    *" -dtls"*) dtls=1 ;;
    *) dtls=0 ;;
    esac
    if [ "$dtls" = 1 ]; then
        # shellcheck disable=SC2068
        "$swrap" "$tmp/srv.trace" timeout "$STEP_TIMEOUT" "$OPENSSL" s_server \
            -accept 127.0.0.1:0 -naccept 1 -key "$tmp/$kt.key" -cert "$tmp/$kt.crt" $@ \
            > "$tmp/srv.out" 2>&1 < "$tmp/srv.in" &
    else
        "$swrap" "$tmp/srv.trace" timeout "$STEP_TIMEOUT" "$OPENSSL" s_server \
            -accept 127.0.0.1:0 -naccept 1 -rev -key "$tmp/$kt.key" -cert "$tmp/$kt.crt" \
            $(server_opts "$@") > "$tmp/srv.out" 2>&1 < /dev/null &
    fi
    server_pid=$!
    port=
    tries=0
    while [ "$tries" -lt 100 ]; do  # up to 10 s
        port=$(sed -n 's/^ACCEPT 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$tmp/srv.out")
        [ -n "$port" ] && break
        kill -0 "$server_pid" 2> /dev/null || break
        sleep 0.1
        tries=$((tries + 1))
    done
    steps=$((steps + 1))
    if [ -z "$port" ]; then
        fail "$name: the server did not start listening"
        show "$tmp/srv.out"
        stop_server
        return 1
    fi
    token=ctrsa-$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
    want=$(printf '%s\n' "$token" | awk '{ s = ""; for (i = length($0); i > 0; i--)
                                           s = s substr($0, i, 1); print s }')
    if [ "$dtls" = 1 ]; then
        # the client closes at the end of its input; the server prints what it read
        printf '%s\n' "$token" |
            "$cwrap" "$tmp/cli.trace" timeout "$STEP_TIMEOUT" "$OPENSSL" s_client \
                -connect "127.0.0.1:$port" -brief -CAfile "$tmp/$kt.crt" \
                -verify_return_error "$@" > "$tmp/cli.out" 2> "$tmp/cli.err"
        want=$token
    else
        printf '%s\nCLOSE\n' "$token" |
            "$cwrap" "$tmp/cli.trace" timeout "$STEP_TIMEOUT" "$OPENSSL" s_client \
                -connect "127.0.0.1:$port" -brief -ign_eof -CAfile "$tmp/$kt.crt" \
                -verify_return_error "$@" > "$tmp/cli.out" 2> "$tmp/cli.err"
    fi
    crc=$?
    wait "$server_pid"
    src=$?
    server_pid=
    if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
        fail "$name: client exit $crc, server exit $src"
        echo "  server:"; show "$tmp/srv.out"
        echo "  client:"; show "$tmp/cli.err"; show "$tmp/cli.out"
        return 1
    fi
    if [ "$dtls" = 1 ]; then
        if ! grep -qx "$want" "$tmp/srv.out"; then
            fail "$name: the server did not print the client's data ('$want'); it printed:"
            show "$tmp/srv.out"
            return 1
        fi
        ok "$name: handshake, data from the client"
        return 0
    fi
    if ! grep -qx "$want" "$tmp/cli.out"; then
        fail "$name: the client did not get its data back reversed ('$want'); it got:"
        show "$tmp/cli.out"
        return 1
    fi
    ok "$name: handshake, data both ways"
}

# server_opts CLIENT_OPTIONS...: the options the server needs beside the client's: for the
# old protocols the same version and cipher list (security level 0 on both ends).
server_opts() {
    case " $* " in
    *" -tls1 "* | *" -tls1_1 "*) echo "$*" ;;
    esac
}

# The Signature type line that s_client -brief prints for a handshake wholly in the
# default provider, as the oracle: OpenSSL 3.0 names the algorithm ("RSA-PSS"), 3.2 and
# later the TLS signature scheme ("rsa_pss_rsae_sha256", "rsa_pss_pss_sha256").
# oracle_sigtype KEYTYPE PROTO: sets $oracle_sig (empty if the handshake failed).
oracle_sigtype() {
    oracle_sig=
    # shellcheck disable=SC2046
    handshake "$1 $2, default provider on both sides (oracle)" "$1" without_ctrsa \
        without_ctrsa $(proto_opts "$2") || return 1
    oracle_sig=$(sed -n 's/^Signature type: //p' "$tmp/cli.err")
    steps=$((steps + 1))
    case $oracle_sig in
    *[!A-Za-z0-9_-]* | "")
        fail "$1 $2 (oracle): no usable Signature type line:"
        show "$tmp/cli.err"
        oracle_sig=
        return 1 ;;
    *[Pp][Ss][Ss]*) ok "$1 $2 (oracle): Signature type: $oracle_sig" ;;
    *)
        fail "$1 $2 (oracle): not a PSS signature: $oracle_sig"
        return 1 ;;
    esac
}
# oracle_old PROTO: the default provider alone, on both sides, with an old protocol (TLS 1.0,
# 1.1, DTLS 1.0: the server signs with MD5-SHA1). Sets $oracle_sig to its Signature type
# line; 1 (and a "skip" line saying why) if this OpenSSL cannot make such a handshake at all.
oracle_old() {
    oracle_sig=
    # shellcheck disable=SC2046
    if ! handshake "rsa $1, default provider on both sides (oracle)" rsa without_ctrsa \
            without_ctrsa $(proto_opts "$1") > "$tmp/oracle.out" 2>&1; then
        echo "skip: rsa $1: the default provider alone cannot make this handshake with this OpenSSL:"
        show "$tmp/oracle.out"
        steps=$((steps - 1)) failures=$((failures - 1))  # not a failure of ctrsa's
        return 1
    fi
    cat "$tmp/oracle.out"
    oracle_sig=$(sed -n 's/^Signature type: //p' "$tmp/cli.err")
    steps=$((steps + 1))
    case $oracle_sig in
    *[!A-Za-z0-9_-]* | "")
        fail "rsa $1 (oracle): no usable Signature type line:"
        show "$tmp/cli.err"
        oracle_sig=
        return 1 ;;
    *) ok "rsa $1 (oracle): Signature type: $oracle_sig" ;;
    esac
}
proto_opts() {
    case $1 in
    tls13) echo "-tls1_3" ;;
    rsakex) echo "-tls1_2 -cipher AES128-GCM-SHA256" ;;
    ecdhe) echo "-tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256" ;;
    tls10) echo "-tls1 -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0" ;;
    tls11) echo "-tls1_1 -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0" ;;
    dtls10) echo "-dtls1 -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0" ;;
    esac
}

# The three protocols: label, client options, server-side and client-side
# expectations (what s_server reports, and the Signature type line from s_client -brief).
run_case() {  # run_case KEYTYPE PROTO SERVERSIDE CLIENTSIDE
    kt=$1 proto=$2 sside=$3 cside=$4
    copts=$(proto_opts "$proto")
    case $proto in
    tls13)
        suite='^Ciphersuite: TLS_AES_'
        version='^Protocol version: TLSv1\.3$'
        srv_op='^ctrsa: sign bits=2048 pad=pss$'
        cli_op='^ctrsa: verify bits=2048 pad=pss$' ;;
    rsakex)
        suite='^Ciphersuite: AES128-GCM-SHA256$'
        version='^Protocol version: TLSv1\.2$'
        srv_op='^ctrsa: decrypt bits=2048 pad=pkcs1-tls$'
        cli_op='^ctrsa: encrypt bits=2048 pad=pkcs1$' ;;
    ecdhe)
        suite='^Ciphersuite: ECDHE-RSA-AES128-GCM-SHA256$'
        version='^Protocol version: TLSv1\.2$'
        srv_op='^ctrsa: sign bits=2048 pad=pss$'
        cli_op='^ctrsa: verify bits=2048 pad=pss$' ;;
    tls10 | tls11 | dtls10)
        suite='^Ciphersuite: ECDHE-RSA-AES128-SHA$'
        case $proto in
        tls10) version='^Protocol version: TLSv1$' ;;
        tls11) version='^Protocol version: TLSv1\.1$' ;;
        dtls10) version='^Protocol version: DTLSv1$' ;;
        esac
        srv_op='^ctrsa: sign bits=2048 pad=pkcs1$'
        cli_op='^ctrsa: verify bits=2048 pad=pkcs1$' ;;
    esac
    name="$kt $proto, server $sside, client $cside"
    swrap=without_ctrsa
    cwrap=without_ctrsa
    [ "$sside" = ctrsa ] && swrap=with_ctrsa
    [ "$cside" = ctrsa ] && cwrap=with_ctrsa
    # shellcheck disable=SC2086
    handshake "$name" "$kt" "$swrap" "$cwrap" $copts || return 1
    # (a DTLS server without -rev does not print them; the -brief client does)
    info=$tmp/srv.out
    [ "$proto" = dtls10 ] && info=$tmp/cli.err
    has "$name: protocol" "$info" "$version"
    has "$name: cipher suite" "$info" "$suite"
    has "$name: server certificate verified" "$tmp/cli.err" '^Verification: OK$'
    if [ "$proto" = rsakex ]; then
        # RSA key exchange: nothing is signed by the server.
        lacks "$name: no server signature" "$tmp/cli.err" '^Signature type:'
    else
        # the same scheme as between two default providers on this OpenSSL
        eval "want_sig=\${sig_$(echo "$kt" | tr - _)_$proto:-}"
        has "$name: signature type as the default provider's" "$tmp/cli.err" \
            "^Signature type: ${want_sig:-(no oracle)}\$"
    fi
    if [ "$sside" = ctrsa ]; then
        has "$name: server trace" "$tmp/srv.trace" "$srv_op"
        [ "$proto" = rsakex ] &&
            lacks "$name: server signed nothing" "$tmp/srv.trace" '^ctrsa: sign '
    fi
    if [ "$cside" = ctrsa ]; then
        has "$name: client trace" "$tmp/cli.trace" "$cli_op"
    fi
    return 0
}

# The oracle's Signature type for each signed handshake (sig_rsa_tls13, sig_rsa_ecdhe,
# sig_rsa_pss_tls13 below are read by run_case).
oracle_sigtype rsa tls13 && sig_rsa_tls13=$oracle_sig
oracle_sigtype rsa ecdhe && sig_rsa_ecdhe=$oracle_sig
oracle_sigtype rsa-pss tls13 && sig_rsa_pss_tls13=$oracle_sig

for proto in tls13 rsakex ecdhe; do
    for sides in "ctrsa default" "ctrsa ctrsa" "default ctrsa"; do
        # shellcheck disable=SC2086
        run_case rsa "$proto" $sides
    done
done
# TLS 1.0, 1.1 and DTLS 1.0 (their ServerKeyExchange is signed with MD5-SHA1), where this
# OpenSSL can make them at all.
for proto in tls10 tls11 dtls10; do
    oracle_old "$proto" || continue
    eval "sig_rsa_$proto=\$oracle_sig"
    for sides in "ctrsa default" "ctrsa ctrsa" "default ctrsa"; do
        # shellcheck disable=SC2086
        run_case rsa "$proto" $sides
    done
done
# An RSA-PSS key can only sign with PSS: TLS 1.3 (rsa_pss_pss_* signature schemes).
for sides in "ctrsa default" "ctrsa ctrsa"; do
    # shellcheck disable=SC2086
    run_case rsa-pss tls13 $sides
done

finish
