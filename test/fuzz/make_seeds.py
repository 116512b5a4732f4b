#!/usr/bin/env python3
"""Seed inputs for the libFuzzer harnesses of test/fuzz, from the Wycheproof vectors in
test/vectors and from RSA keys of every size made with the openssl command.

    make_seeds.py OUTDIR

writes OUTDIR/<target>/<name> in each harness's input format (see the comment on top of
each fuzz_*.c). .ci/fuzz --seed merges them, minimised, into test/fuzz/corpus/<target>/.
Deterministic except for the keys, which openssl generates afresh.
"""
import glob
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, '..', 'vectors')
# fz_md_names in fuzz_padding_md.h, in order.
MDS = ['SHA1', 'SHA224', 'SHA256', 'SHA384', 'SHA512', 'SHA512-224', 'SHA512-256',
       'SHA3-256', 'SHA3-512']
WYCHE_MD = {'SHA-1': 0, 'SHA-224': 1, 'SHA-256': 2, 'SHA-384': 3, 'SHA-512': 4,
            'SHA-512/224': 5, 'SHA-512/256': 6, 'SHA3-256': 7, 'SHA3-512': 8}
HASHLIB = ['sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256',
           'sha3_256', 'sha3_512']
rng = random.Random(10)


def u16(v):
    return struct.pack('>H', v & 0xffff)


def lp(b):
    """A length-prefixed byte string (fz_bytes)."""
    return u16(len(b)) + b


def ibytes(x, length=None):
    if length is None:
        length = max(1, (x.bit_length() + 7) // 8)
    return x.to_bytes(length, 'big')


def der_ints(der):
    """Every INTEGER of a DER structure, depth first (enough for PKCS#1 RSAPrivateKey)."""
    out = []

    def walk(b):
        i = 0
        while i < len(b):
            tag = b[i]
            ln = b[i + 1]
            j = i + 2
            if ln & 0x80:
                nb = ln & 0x7f
                ln = int.from_bytes(b[j:j + nb], 'big')
                j += nb
            body = b[j:j + ln]
            if tag == 0x02:
                out.append(int.from_bytes(body, 'big'))
            elif tag in (0x30, 0xa0):
                walk(body)
            i = j + ln
    walk(der)
    return out


def openssl(*args, data=None):
    return subprocess.run(['openssl'] + list(args), input=data, check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout


class Out:
    def __init__(self, root):
        self.root = root

    def put(self, target, name, data):
        d = os.path.join(self.root, target)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)


def make_keys(tmp):
    """(name, PEM of the private key, PKCS#1 numbers or None) for keys of every size."""
    specs = [('rsa1024', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024']),
             ('rsa1536', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1536']),
             ('rsa2048', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']),
             ('rsa2048e3', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048',
                            '-pkeyopt', 'rsa_keygen_pubexp:3']),
             ('rsa3072p3', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072',
                            '-pkeyopt', 'rsa_keygen_primes:3']),
             ('rsa4096p4', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096',
                            '-pkeyopt', 'rsa_keygen_primes:4']),
             ('rsa4096', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096']),
             ('pss2048', ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048']),
             ('pss2048r', ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048',
                           '-pkeyopt', 'rsa_pss_keygen_md:SHA256',
                           '-pkeyopt', 'rsa_pss_keygen_mgf1_md:SHA256',
                           '-pkeyopt', 'rsa_pss_keygen_saltlen:32'])]
    keys = []
    for name, opts in specs:
        pem = openssl('genpkey', *opts)
        nums = None
        if name.startswith('rsa'):
            der = openssl('rsa', '-outform', 'DER', '-traditional', data=pem)
            nums = der_ints(der)
        keys.append((name, pem, nums))
    return keys


def keydecode_seeds(out, keys):
    for name, pem, _ in keys:
        out.put('fuzz_keydecode', name + '.pem', pem)
        out.put('fuzz_keydecode', name + '.p8.der', openssl('pkey', '-outform', 'DER', data=pem))
        out.put('fuzz_keydecode', name + '.pub.der',
                openssl('pkey', '-pubout', '-outform', 'DER', data=pem))
        out.put('fuzz_keydecode', name + '.pub.pem', openssl('pkey', '-pubout', data=pem))
        if name.startswith('rsa'):
            out.put('fuzz_keydecode', name + '.pkcs1.der',
                    openssl('rsa', '-outform', 'DER', '-traditional', data=pem))
    seen = set()
    for path in sorted(glob.glob(os.path.join(VECTORS, '*.json'))):
        with open(path) as f:
            doc = json.load(f)
        for i, g in enumerate(doc['testGroups']):
            for field in ('publicKeyDer', 'privateKeyPkcs8'):
                if field in g and g[field] not in seen:
                    seen.add(g[field])
                    out.put('fuzz_keydecode', '%s-%d-%s' % (os.path.basename(path)[:-5], i,
                                                            field), bytes.fromhex(g[field]))


def keyimport_seed(nums, pss, priv, crt, restrict, data=b'fuzz', md=2, mgf1=2, salt=32, sel=0):
    version, n, e, d = nums[0], nums[1], nums[2], nums[3]
    p, q, dp, dq, qinv = nums[4:9]
    extra = nums[9:]  # r_i, d_i, t_i triples of the other primes
    others = [extra[i:i + 3] for i in range(0, len(extra), 3)]
    primes = 2 + len(others)
    flags = (pss | priv << 1 | (primes - 2) << 2 | crt << 4 | restrict << 5)
    b = bytes([flags]) + lp(ibytes(n)) + lp(ibytes(e))
    if priv:
        b += lp(ibytes(d))
        for f in [p, q] + [o[0] for o in others]:
            b += lp(ibytes(f))
        if crt:
            for x in [dp, dq] + [o[1] for o in others]:
                b += lp(ibytes(x))
            for x in [qinv] + [o[2] for o in others]:
                b += lp(ibytes(x))
    if pss and restrict:
        b += bytes([md, mgf1]) + u16(salt)
    return b + bytes([sel]) + data


def keyimport_seeds(out, keys):
    for name, _, nums in keys:
        if nums is None:
            continue
        put = lambda tag, b: out.put('fuzz_keyimport', name + '-' + tag, b)
        put('pub', keyimport_seed(nums, 0, 0, 0, 0))
        for sel in range(5):  # each group of operations of fz_key_ops
            put('priv%d' % sel, keyimport_seed(nums, 0, 1, 1, 0, sel=sel))
        put('nocrt', keyimport_seed(nums, 0, 1, 0, 0, data=b'message' * 3))
        put('psspub', keyimport_seed(nums, 1, 0, 0, 0))
        put('pss', keyimport_seed(nums, 1, 1, 1, 1))
        put('pss-sm3', keyimport_seed(nums, 1, 1, 1, 1, md=2, mgf1=10, salt=20))
        put('pss-sha1', keyimport_seed(nums, 1, 1, 1, 1, md=0, mgf1=0, salt=20))
    # A big public exponent (defect 3's shape, within the harness' 4096-bit bound).
    n = keys[0][2][1]
    out.put('fuzz_keyimport', 'big-e', bytes([0]) + lp(ibytes(n)) + lp(ibytes(n - 2)) + b'x')


def wyche(pattern):
    for path in sorted(glob.glob(os.path.join(VECTORS, pattern))):
        with open(path) as f:
            doc = json.load(f)
        for gi, g in enumerate(doc['testGroups']):
            yield os.path.basename(path)[:-5], gi, g


def pick(tests, count=4):
    """A few valid and a few invalid tests of a group."""
    valid = [t for t in tests if t['result'] == 'valid'][:count]
    other = [t for t in tests if t['result'] != 'valid'][:count]
    return valid + other


def enc_padding_seeds(out):
    for name, gi, g in wyche('rsa_oaep_*_test.json'):
        if 'three_primes' in name and gi > 0:
            continue
        key = g['privateKey']
        n, d = int(key['modulus'], 16), int(key['privateExponent'], 16)
        k = (n.bit_length() + 7) // 8
        hi, mi = WYCHE_MD.get(g['sha']), WYCHE_MD.get(g['mgfSha'])
        if hi is None or mi is None:
            continue
        for t in pick(g['tests'], 2):
            em = ibytes(pow(int(t['ct'], 16) % n, d, n), k)
            label = bytes.fromhex(t['label'])
            out.put('fuzz_enc_padding', '%s-%d-%d' % (name, gi, t['tcId']),
                    bytes([0, hi, mi]) + u16(0x0303) + u16(0) + lp(label) + em)
    for name, gi, g in wyche('rsa_pkcs1_*_test.json'):
        if 'sig_gen' in name or 'privateKey' not in g:
            continue
        key = g['privateKey']
        n, d = int(key['modulus'], 16), int(key['privateExponent'], 16)
        k = (n.bit_length() + 7) // 8
        for t in pick(g['tests'], 3):
            em = ibytes(pow(int(t['ct'], 16) % n, d, n), k)
            cv = int.from_bytes(em[-48:-46], 'big')
            for sel in (1, 2, 3):
                out.put('fuzz_enc_padding', '%s-%d-%d-%d' % (name, gi, t['tcId'], sel),
                        bytes([sel, 2, 2]) + u16(cv) + u16(0x0301) + lp(b'\x11' * 32) + em)
    # TLS blocks that pass: 0x00 0x02, nonzero padding, 0x00, version, 46 bytes.
    for k in (59, 128, 256):
        em = b'\x00\x02' + b'\x5a' * (k - 51) + b'\x00' + b'\x03\x03' + bytes(range(46))
        out.put('fuzz_enc_padding', 'tls-%d' % k,
                bytes([3, 2, 2]) + u16(0x0303) + u16(0x0301) + lp(b'') + em)


def sig_padding_seeds(out):
    for name, gi, g in wyche('rsa_pss_*_test.json'):
        if g.get('mgf') != 'MGF1':
            continue
        key = g['publicKey']
        n, e = int(key['modulus'], 16), int(key['publicExponent'], 16)
        bits = n.bit_length()
        k = (bits + 7) // 8
        hi, mi = WYCHE_MD.get(g['sha']), WYCHE_MD.get(g['mgfSha'])
        if hi is None or mi is None:
            continue
        for t in pick(g['tests'], 2):
            em = ibytes(pow(int(t['sig'], 16) % n, e, n), k)
            mhash = hashlib.new(HASHLIB[hi], bytes.fromhex(t['msg'])).digest()
            x = (8 * k - bits) & 7 | 4 << 3  # explicit salt length
            out.put('fuzz_sig_padding', '%s-%d-%d' % (name, gi, t['tcId']),
                    bytes([0, hi, mi, x]) + u16(g['sLen']) + lp(mhash) + em)
    for name, gi, g in wyche('rsa_signature_*_test.json'):
        key = g.get('publicKey')
        hi = WYCHE_MD.get(g['sha'])
        if key is None or hi is None:
            continue
        n, e = int(key['modulus'], 16), int(key['publicExponent'], 16)
        k = (n.bit_length() + 7) // 8
        for t in pick(g['tests'], 2):
            em = ibytes(pow(int(t['sig'], 16) % n, e, n), k)
            dig = hashlib.new(HASHLIB[hi], bytes.fromhex(t['msg'])).digest()
            for sel in (1, 2):
                out.put('fuzz_sig_padding', '%s-%d-%d-%d' % (name, gi, t['tcId'], sel),
                        bytes([sel, hi, hi, 0]) + u16(0) + lp(dig) + em)


def bignum_seeds(out, keys):
    for name, _, nums in keys:
        if nums is None:
            continue
        n, e, d, p, q = nums[1:6]
        small = p if p.bit_length() <= 2048 else n % (1 << 2048) | 1
        for op in range(9):
            m = small if op in (2, 3, 4) else n
            a, b = rng.getrandbits(m.bit_length()) % m, rng.getrandbits(m.bit_length()) % m
            if op == 6:
                body = lp(ibytes(n)) + bytes([rng.randrange(70)]) + u16(rng.randrange(600))
            elif op == 8:
                body = lp(ibytes(p - 1)) + lp(ibytes(d))
            elif op == 4:
                body = (lp(ibytes(p)) + lp(ibytes(a % p)) + lp(ibytes(b % p))
                        + lp(ibytes(d % (p - 1))) + lp(ibytes(q)) + lp(ibytes(b % q))
                        + lp(ibytes(d % (q - 1))))
            elif op == 7:
                body = lp(ibytes(m)) + lp(ibytes(a * b)) + lp(ibytes(b))
            else:
                ex = e if op == 3 else d % (m - 1)
                body = lp(ibytes(m)) + lp(ibytes(a)) + lp(ibytes(b)) + lp(ibytes(ex))
            out.put('fuzz_bignum', '%s-op%d' % (name, op), bytes([op]) + body)


def params_seeds(out):
    # names[] and words[] indices in fuzz_params.c
    PAD, DIGEST, MGF1, SALT, OAEPMD, LABEL, CV, IR = 0, 1, 3, 5, 8, 11, 12, 14
    W = {'pkcs1': 0, 'none': 1, 'oaep': 2, 'oeap': 3, 'x931': 4, 'pss': 5, 'SHA256': 6,
         'SHA1': 7, 'SM3': 10, 'max': 17, 'auto': 18, '-1': 20, '20': 24}

    def param(name, typ, w, data=b''):
        return bytes([name, typ, w]) + lp(data)
    combos = [
        (0, [param(PAD, 0, W['pss']), param(SALT, 0, W['max']), param(MGF1, 0, W['SHA1'])]),
        (0, [param(PAD, 0, W['pkcs1']), param(DIGEST, 0, W['SHA256'])]),
        (0, [param(PAD, 2, 200, struct.pack('<i', 6)), param(SALT, 2, 200, b'\x14')]),
        (0, [param(PAD, 0, W['x931'])]),
        (1, [param(PAD, 0, W['pss']), param(SALT, 0, W['auto'])]),
        (2, [param(PAD, 0, W['none'])]),
        (3, [param(PAD, 0, W['oaep']), param(OAEPMD, 0, W['SHA1']), param(LABEL, 5, 200,
                                                                          b'label')]),
        (3, [param(PAD, 0, W['oeap'])]),
        (4, [param(PAD, 0, W['pkcs1']), param(IR, 3, 200, b'\x00')]),
        (4, [param(PAD, 2, 200, struct.pack('<i', 7)), param(CV, 3, 200, b'\x03\x03')]),
        (4, [param(PAD, 0, W['oaep']), param(MGF1, 0, W['SM3'])]),
    ]
    for i, (op, ps) in enumerate(combos):
        for ki in range(5):
            body = bytes([ki, op, len(ps)]) + b''.join(ps) + u16(512) + lp(bytes(range(32)))
            out.put('fuzz_params', 'combo%d-key%d' % (i, ki), body + bytes([64] * 7))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Out(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        keys = make_keys(tmp)
    keydecode_seeds(out, keys)
    keyimport_seeds(out, keys)
    enc_padding_seeds(out)
    sig_padding_seeds(out)
    bignum_seeds(out, keys)
    params_seeds(out)


if __name__ == '__main__':
    main()
