#!/bin/sh
# Key generation through the real openssl command line: genpkey with ctrsa (loaded with
# -provider and through provider.cnf), checked by openssl running with the default provider
# alone (pkey -check -text, a self-signed certificate and its verification). Each ctrsa run
# must leave "ctrsa: keygen bits=<n> pad=-" in the CTRSA_TRACE file, because OpenSSL falls
# back to the default provider silently when ctrsa's key manager is not picked.
#
# Usage: keygen_test.sh [path to openssl]. Environment (set by meson): CTRSA_MODULE_DIR
# (holds ctrsa.so), CTRSA_SOURCE_ROOT.
. "$(dirname "$0")/common.sh"

trace=$tmp/trace.log
conf=$CTRSA_SOURCE_ROOT/provider.cnf
export CTRSA_MODULE_DIR

# openssl with ctrsa and default loaded by -provider options, tracing to $trace.
ctrsa_cmd() {
    : > "$trace"
    sub=$1
    shift
    env -u OPENSSL_CONF CTRSA_TRACE="$trace" "$OPENSSL" "$sub" -provider-path "$CTRSA_MODULE_DIR" \
        -provider ctrsa -provider default "$@"
}

# openssl with ctrsa through provider.cnf (OpenSSL picks ctrsa's key manager for RSA).
ctrsa_conf() {
    : > "$trace"
    OPENSSL_CONF=$conf CTRSA_TRACE="$trace" "$OPENSSL" "$@"
}

# refuse NAME TEXT CMD...: the command must fail and print TEXT.
refuse() {
    name=$1
    text=$2
    shift 2
    steps=$((steps + 1))
    if "$@" > "$tmp/out" 2>&1; then
        fail "$name (succeeded, should have failed)"
        return 1
    fi
    if grep -qF "$text" "$tmp/out"; then
        echo "ok: $name (refused: $text)"
        return 0
    fi
    fail "$name: refused without \"$text\":"
    show "$tmp/out"
    return 1
}

# expect NAME TEXT: the last run's output contains TEXT.
expect() {
    steps=$((steps + 1))
    if grep -qF "$2" "$tmp/out"; then
        echo "ok:   $1"
        return 0
    fi
    fail "$1: output lacks \"$2\":"
    show "$tmp/out"
    return 1
}

# traced BITS: the last ctrsa run wrote its keygen trace line.
traced() {
    steps=$((steps + 1))
    if grep -q "^ctrsa: keygen bits=$1 pad=-\$" "$trace"; then
        echo "ok:   trace shows ctrsa: keygen bits=$1"
        return 0
    fi
    fail "trace lacks 'ctrsa: keygen bits=$1 pad=-'; it holds:"
    show "$trace"
    return 1
}

# ---- genpkey -provider ctrsa, 3072 bits ----
key=$tmp/key3072.pem
if run "genpkey -provider ctrsa rsa_keygen_bits:3072" ctrsa_cmd genpkey -algorithm RSA \
        -pkeyopt rsa_keygen_bits:3072 -out "$key"; then
    traced 3072
    run "pkey -check -text (default provider)" plain_ssl pkey -in "$key" -check -text -noout &&
        expect "key is valid" "Key is valid" &&
        expect "3072-bit, 2 primes" "Private-Key: (3072 bit, 2 primes)" &&
        expect "e = 65537" "publicExponent: 65537 (0x10001)"
    cert=$tmp/cert.pem
    run "req -x509 self-signed certificate from the key" plain_ssl req -x509 -new -key "$key" \
        -sha256 -days 2 -subj "/CN=ctrsa keygen test" -out "$cert"
    run "verify -check_ss_sig (default provider)" plain_ssl verify -check_ss_sig \
        -CAfile "$cert" "$cert" && expect "certificate verifies" "OK"
    run "x509 -text" plain_ssl x509 -in "$cert" -noout -text &&
        expect "certificate holds the 3072-bit key" "Public-Key: (3072 bit)"
    # the certificate signed by ctrsa itself with the generated key
    run "req -x509 signed by ctrsa" ctrsa_cmd req -x509 -new -key "$key" -sha256 -days 2 \
        -subj "/CN=ctrsa keygen test 2" -out "$tmp/cert2.pem"
    run "verify the ctrsa-signed certificate (default provider)" plain_ssl verify \
        -check_ss_sig -CAfile "$tmp/cert2.pem" "$tmp/cert2.pem"
fi

# ---- through provider.cnf: genpkey -algorithm RSA with no options (2048 bits) ----
if run "OPENSSL_CONF=provider.cnf genpkey -algorithm RSA" ctrsa_conf genpkey -algorithm RSA \
        -out "$tmp/key2048.pem"; then
    traced 2048
    run "pkey -check (default provider)" plain_ssl pkey -in "$tmp/key2048.pem" -check -text \
        -noout && expect "2048-bit key is valid" "Key is valid" &&
        expect "2048 bits" "Private-Key: (2048 bit, 2 primes)"
fi

# ---- e = 3, three primes, RSA-PSS ----
if run "genpkey rsa_keygen_pubexp:3" ctrsa_conf genpkey -algorithm RSA \
        -pkeyopt rsa_keygen_bits:1024 -pkeyopt rsa_keygen_pubexp:3 -out "$tmp/e3.pem"; then
    traced 1024
    run "pkey -check e = 3" plain_ssl pkey -in "$tmp/e3.pem" -check -text -noout &&
        expect "e = 3" "publicExponent: 3 (0x3)" && expect "valid" "Key is valid"
fi
if run "genpkey rsa_keygen_primes:3" ctrsa_conf genpkey -algorithm RSA \
        -pkeyopt rsa_keygen_bits:3072 -pkeyopt rsa_keygen_primes:3 -out "$tmp/mp.pem"; then
    traced 3072
    run "pkey -check 3 primes" plain_ssl pkey -in "$tmp/mp.pem" -check -text -noout &&
        expect "3 primes" "Private-Key: (3072 bit, 3 primes)" && expect "valid" "Key is valid"
fi
if run "genpkey -algorithm RSA-PSS rsa_pss_keygen_md:sha256" ctrsa_conf genpkey \
        -algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_pss_keygen_md:sha256 \
        -pkeyopt rsa_pss_keygen_saltlen:32 -out "$tmp/pss.pem"; then
    traced 2048
    run "pkey -check RSA-PSS" plain_ssl pkey -in "$tmp/pss.pem" -check -text -noout &&
        expect "valid" "Key is valid" && expect "restricted to SHA-256" "Hash Algorithm: SHA2-256" &&
        expect "salt length 32" "Minimum Salt Length: 32"
fi

# ---- bad parameters ----
refuse "genpkey rsa_keygen_bits:511" "ctrsa generates keys of 512 to 16384 bits" \
    ctrsa_conf genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:511
refuse "genpkey rsa_keygen_bits:20000" "ctrsa generates keys of 512 to 16384 bits" \
    ctrsa_conf genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:20000
refuse "genpkey rsa_keygen_pubexp:65536" "e must be odd and at least 3" \
    ctrsa_conf genpkey -algorithm RSA -pkeyopt rsa_keygen_pubexp:65536
refuse "genpkey rsa_keygen_primes:6" "ctrsa generates keys of 2 to 5 primes" \
    ctrsa_conf genpkey -algorithm RSA -pkeyopt rsa_keygen_primes:6

finish
