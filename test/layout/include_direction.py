#!/usr/bin/env python3
"""The include direction of provider/ (docs/design.md, "Layers"), from the #include lines.

    include_direction.py SOURCE_ROOT

provider/ has three floors: the entry and the plumbing at its top, ops/ (OpenSSL's
operations) and key/ (the key object and what computes with it). Checked, each header
followed through the headers it includes (quoted includes, resolved in provider/ and its
folders, bignum/ and padding/):

1. Nothing in provider/key/ reaches a header of provider/ops/: the key object and its
   operations know nothing of OpenSSL's dispatch tables.
2. The key object itself (rsa_key.c, blinding_slots.c, secret_stack.c and the headers they
   include) reaches none of the headers of what computes with it (rsa_op.h,
   rsa_op_internal.h, rsa_keygen.h, rsasve.h): the operations use the key, never the
   reverse.
3. A folder's internal headers (*_internal.h in key/, signature.h in ops/) are included only
   from that folder.
4. provider/key/ reads no OSSL_PARAM: no <openssl/params.h> or <openssl/core_names.h>.

Prints each violation with the chain of includes that makes it and exits 1; 0 when all
hold. Public data only; no build needed.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)
KEY_OBJECT = ('rsa_key.c', 'blinding_slots.c', 'secret_stack.c')
OPERATION_HEADERS = ('rsa_op.h', 'rsa_op_internal.h', 'rsa_keygen.h', 'rsasve.h')
INTERNAL = {'key': ('rsa_key_internal.h', 'rsa_op_internal.h'), 'ops': ('signature.h',)}
NO_PARAMS = ('openssl/params.h', 'openssl/core_names.h')


def main(root):
    prov = os.path.join(root, 'provider')
    dirs = [prov, os.path.join(prov, 'key'), os.path.join(prov, 'ops'),
            os.path.join(root, 'bignum'), os.path.join(root, 'padding')]
    where = {}          # header name -> path (quoted includes name headers without folders)
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith('.h'):
                where.setdefault(name, os.path.join(d, name))
    cache = {}

    def direct(path):
        if path not in cache:
            with open(path, encoding='utf-8') as f:
                cache[path] = INCLUDE.findall(f.read())
        return cache[path]

    def reach(path):
        """Every header path reaches -> the chain of names that leads there."""
        seen = {}
        todo = [(path, [os.path.relpath(path, root)])]
        while todo:
            p, chain = todo.pop()
            for kind, name in direct(p):
                target = where.get(name) if kind == '"' else None
                key = target or '<%s>' % name
                if key in seen:
                    continue
                seen[key] = chain + [name]
                if target:
                    todo.append((target, chain + [name]))
        return seen

    def folder(path):
        rel = os.path.relpath(path, prov)
        return rel.split(os.sep)[0] if os.sep in rel else 'top'

    problems = []
    sources = []
    for d in dirs[:3]:
        for name in sorted(os.listdir(d)):
            if name.endswith(('.c', '.h')):
                sources.append(os.path.join(d, name))
    for src in sources:
        f = folder(src)
        name = os.path.basename(src)
        for dest, chain in sorted(reach(src).items()):
            why = ' -> '.join(chain)
            if f == 'key' and dest.startswith(os.path.join(prov, 'ops') + os.sep):
                problems.append('key/ reaches ops/: ' + why)
            if f == 'key' and name in KEY_OBJECT + ('rsa_key.h', 'rsa_key_internal.h') \
                    and os.path.basename(dest) in OPERATION_HEADERS:
                problems.append('the key object reaches an operation header: ' + why)
            if f == 'key' and dest.strip('<>') in NO_PARAMS:
                problems.append('key/ reads OSSL_PARAMs: ' + why)
        for kind, inc in direct(src):
            for owner, headers in INTERNAL.items():
                if kind == '"' and inc in headers and f != owner:
                    problems.append('%s/ includes %s/%s: %s' % (
                        f, owner, inc, os.path.relpath(src, root)))
    for p in problems:
        print('include direction:', p)
    print('include direction: %d files of provider/ checked, %d problem(s)'
          % (len(sources), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
