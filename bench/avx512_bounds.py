#!/usr/bin/env python3
"""Worst-case lane bounds of the avx512 backend's AMM and squaring body (bignum/avx512_body.h)
at both register widths, step by step in the body's own order.

Every operand digit is taken at the lazy bound 2^W + 2^9 - 1, every modulus digit and
quotient digit at 2^W - 1, and each step adds its products' bounds to the lanes it touches
(the body's loops, masks and digit ranges, mirrored one for one: low_products, quotients,
accumulate, mid_pass, sq_start, sq_row_block, the final carry passes). A carry pass leaves
min(lane, 2^W - 1) plus the bits above W of the lane below. It prints, per (W, D, VL,
squaring, friendly), the largest value any lane or scalar sum of the quotient step can
reach (log2) and where, and the largest output digit; it exits 1 if anything could reach
2^64 or an output digit the lazy bound 2^W + 2^9: what avx512.h's lane bounds claim.

    python3 bench/avx512_bounds.py
"""
import math
import sys


def run(w, d, vl, sq, friendly):
    a_max = (1 << w) + (1 << 9) - 1
    m_max = y_max = (1 << w) - 1
    ab, my, dbl = a_max * a_max, m_max * y_max, 2 * a_max * a_max
    nb = d // vl
    worst = [0, ""]

    def chk(v, what):
        if v > worst[0]:
            worst[0], worst[1] = v, what

    def dig(i):
        return 0 <= i < d

    t = [None] * (2 * d + 3 * vl)

    def low_products(low):
        return [low[x] + sum(ab for j in range(vl) if dig(x - j)) for x in range(vl)]

    def quotients(low, c, blk):
        for x in range(vl):
            chk(low[x], "low register of block %d" % blk)
        cc = c
        if friendly:
            for x in range(vl):
                s = low[x] + cc + sum(my for j in range(x) if dig(x - j))
                chk(s, "quotient step, block %d" % blk)
                cc = (s >> w) + y_max
        else:
            for x in range(0, vl, 2):
                s0 = low[x] + cc + x * my
                s1 = low[x + 1] + x * my
                chk(s0 + my, "quotient step, block %d" % blk)
                cc = (s0 + my) >> w
                chk(s1 + cc + 2 * my, "quotient step, block %d" % blk)
                cc = (s1 + cc + 2 * my) >> w
        return cc

    def accumulate(with_ab, v0, v1, k):
        low = None
        for v in range(v0, v1 + 1):
            base = vl * (k + v)
            out = []
            for x in range(vl):
                acc = t[base + x]
                assert acc is not None, "lane %d read before it is written" % (base + x)
                for j in range(vl):
                    if dig(vl * v - j + x):
                        acc += my + (ab if with_ab else 0)
                chk(acc, "register %d in block %d" % (k + v, k))
                out.append(acc)
            if v == 1:
                low = out
            else:
                t[base:base + vl] = out
        return low

    def carry_pass(x):
        top, out = 0, []
        for val in x:
            out.append(min(val, (1 << w) - 1) + top)
            top = val >> w
        return out, top

    def mid_pass(k):
        s, e = vl * (k + 2), vl * (k + 2) + vl * (nb - 1)
        t[s:e], top = carry_pass(t[s:e])
        t[e] += top
        chk(t[e], "top carry of the pass after block %d" % k)

    def pass_after(k):
        return w == 29 and k % 2 == (0 if sq else 1) and k + 1 < nb

    def row_block(k):
        for e in range(2):
            reg = 2 * k + e
            for x in range(vl):
                for j in range(vl):
                    if vl * e + x > 2 * j and dig(vl * (reg - k) + x - j):
                        t[vl * reg + x] += dbl
                chk(t[vl * reg + x], "register %d in row block %d" % (reg, k))
        for reg in range(2 * k + 2, k + nb + 1):
            for x in range(vl):
                t[vl * reg + x] += sum(dbl for j in range(vl) if dig(vl * (reg - k) + x - j))
                chk(t[vl * reg + x], "register %d in row block %d" % (reg, k))

    if sq:
        for i in range(2 * d + vl):
            t[i] = ab if i % 2 == 0 and i < 2 * d else 0
        row_block(0)
        low = t[0:vl]
    else:
        for i in range(vl, 2 * d):
            t[i] = 0
        low = low_products([0] * vl)
    c = quotients(low, 0, 0)
    for k in range(nb):
        low = accumulate(not sq, 1, 1, k)
        c_next = c
        if k + 1 < nb:
            if not sq:
                low = low_products(low)
            c_next = quotients(low, c, k + 1)
            if sq:
                row_block(k + 1)
        accumulate(not sq, 2, nb, k)
        if k + 1 < nb and pass_after(k):
            mid_pass(k)
        c = c_next
    x = [low[0] + c] + low[1:] + t[d + vl:2 * d]
    for v in x:
        chk(v, "final lanes")
    x, _ = carry_pass(x)
    x, _ = carry_pass(x)
    return worst, max(x)


def main():
    bad = 0
    for w, d in ((28, 40), (28, 56), (29, 72)):
        for vl in (8, 4):
            for sq in (0, 1):
                for friendly in (0, 1):
                    (top, where), out = run(w, d, vl, sq, friendly)
                    ok = top < 1 << 64 and out < (1 << w) + (1 << 9)
                    bad |= not ok
                    print("W=%d D=%d VL=%d %s %-8s max 2^%.3f (%s); output digits <= 2^W + %d%s"
                          % (w, d, vl, "sqr" if sq else "amm",
                             "friendly" if friendly else "generic", math.log2(top), where,
                             out - (1 << w), "" if ok else "  OVERFLOW"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
