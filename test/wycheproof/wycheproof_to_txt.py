#!/usr/bin/env python3
"""Convert Wycheproof RSA JSON vector files into the line format test_wycheproof.c reads.

Usage: wycheproof_to_txt.py SIG_OUT DEC_OUT JSON...

Signature groups (RsassaPkcs1Verify, RsassaPssVerify, RsassaPssWithParametersVerify,
RsassaPkcs1Generate) go to SIG_OUT, decryption groups (RsaesOaepDecrypt, RsaesPkcs1Decrypt)
to DEC_OUT. Every line is a record of space-separated key=value tokens (values never hold
spaces; byte strings are lower-case hex, possibly empty):

  F name=<json file name>
  G type=<group type> bits=<key size> sha=<digest> mgf=<MGF1|SHAKE128|SHAKE256|->
    mgfsha=<digest|-> slen=<salt length|-> n= e= [d= p1= p2= .. dp1= .. qi1= ..] [der=]
  T id=<tcId> r=<v|i|a> msg= (sig=|ct=) [label=]

Private keys are taken from the group's PKCS#8 DER (the only field that always holds every
CRT component, including a third prime) and checked against the hex "privateKey" fields.
der= is the SubjectPublicKeyInfo of RsassaPssWithParametersVerify groups: its RSASSA-PSS
parameters are what those tests are about. Standard library only.
"""
import json
import os
import sys

SIG_TYPES = {"RsassaPkcs1Verify", "RsassaPssVerify", "RsassaPssWithParametersVerify",
             "RsassaPkcs1Generate"}
DEC_TYPES = {"RsaesOaepDecrypt", "RsaesPkcs1Decrypt"}
RESULTS = {"valid": "v", "invalid": "i", "acceptable": "a"}


def der_read(buf, pos):
    """One DER TLV at pos: (tag, value bytes, next position)."""
    tag = buf[pos]
    length = buf[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(buf[pos:pos + count], "big")
        pos += count
    return tag, buf[pos:pos + length], pos + length


def der_children(value):
    out, pos = [], 0
    while pos < len(value):
        tag, val, pos = der_read(value, pos)
        out.append((tag, val))
    return out


def der_int(tag_val):
    tag, val = tag_val
    if tag != 0x02:
        raise ValueError("expected INTEGER, got tag 0x%02x" % tag)
    return int.from_bytes(val, "big", signed=True)


def hexnum(x):
    """Minimal big-endian hex of a non-negative integer ("00" for zero)."""
    h = "%x" % x
    return ("0" + h) if len(h) % 2 else h


def private_key_numbers(pkcs8_hex):
    """(n, e, d, primes, exps, coeffs) from a PKCS#8 PrivateKeyInfo holding an RSAPrivateKey."""
    tag, info, _ = der_read(bytes.fromhex(pkcs8_hex), 0)
    assert tag == 0x30
    fields = der_children(info)
    assert fields[2][0] == 0x04, "privateKey OCTET STRING"
    tag, rsakey, _ = der_read(fields[2][1], 0)
    assert tag == 0x30
    items = der_children(rsakey)
    version = der_int(items[0])
    n, e, d, p, q, dp, dq, qi = (der_int(x) for x in items[1:9])
    primes, exps, coeffs = [p, q], [dp, dq], [qi]
    if version == 1:
        for tag, info in der_children(items[9][1]):
            r, dr, tr = (der_int(x) for x in der_children(info))
            primes.append(r)
            exps.append(dr)
            coeffs.append(tr)
    return n, e, d, primes, exps, coeffs


def check_hex_field(group, name, value):
    given = group.get("privateKey", {}).get(name)
    if given is not None and int(given, 16) != value:
        raise ValueError("privateKey.%s disagrees with privateKeyPkcs8" % name)


def key_tokens(group):
    if "privateKeyPkcs8" in group:
        n, e, d, primes, exps, coeffs = private_key_numbers(group["privateKeyPkcs8"])
        for name, value in (("modulus", n), ("publicExponent", e), ("privateExponent", d)):
            check_hex_field(group, name, value)
        toks = ["n=" + hexnum(n), "e=" + hexnum(e), "d=" + hexnum(d)]
        toks += ["p%d=%s" % (i + 1, hexnum(v)) for i, v in enumerate(primes)]
        toks += ["dp%d=%s" % (i + 1, hexnum(v)) for i, v in enumerate(exps)]
        toks += ["qi%d=%s" % (i + 1, hexnum(v)) for i, v in enumerate(coeffs)]
        return toks
    pub = group["publicKey"]
    return ["n=" + hexnum(int(pub["modulus"], 16)),
            "e=" + hexnum(int(pub["publicExponent"], 16))]


def group_line(group):
    toks = ["G", "type=" + group["type"], "bits=%d" % group["keySize"],
            "sha=" + group.get("sha", "-"), "mgf=" + (group.get("mgf") or "-"),
            "mgfsha=" + (group.get("mgfSha") or "-"),
            "slen=" + (str(group["sLen"]) if "sLen" in group else "-")]
    toks += key_tokens(group)
    if group["type"] == "RsassaPssWithParametersVerify":
        toks.append("der=" + group["publicKeyDer"])
    return " ".join(toks)


def test_line(test, gtype):
    toks = ["T", "id=%d" % int(test["tcId"]), "r=" + RESULTS[test["result"]],
            "msg=" + test["msg"]]
    if gtype in DEC_TYPES:
        toks.append("ct=" + test["ct"])
        if "label" in test:
            toks.append("label=" + test["label"])
    else:
        toks.append("sig=" + test["sig"])
    return " ".join(toks)


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    outs = {"sig": [], "dec": []}
    for path in argv[3:]:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        per_out = {"sig": [], "dec": []}
        for group in data["testGroups"]:
            gtype = group["type"]
            if gtype in SIG_TYPES:
                dest = "sig"
            elif gtype in DEC_TYPES:
                dest = "dec"
            else:
                raise ValueError("%s: unknown group type %s" % (path, gtype))
            per_out[dest].append(group_line(group))
            per_out[dest].extend(test_line(t, gtype) for t in group["tests"])
        for dest, lines in per_out.items():
            if lines:
                outs[dest].append("F name=" + os.path.basename(path))
                outs[dest].extend(lines)
    for dest, path in (("sig", argv[1]), ("dec", argv[2])):
        with open(path, "w", encoding="ascii") as f:
            f.write("\n".join(outs[dest]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
