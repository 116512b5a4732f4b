#!/usr/bin/env python3
"""Worst-case lane bounds of the AVX2 squaring kernel (bignum/avx2_sqr.c) and where its
carry passes must go.

The kernel accumulates a^2 + m y in 64-bit lanes T[L] (one per digit position): square
block k (digits 4k..4k+3 of a, doubled cross products a_i a_j for i > j and the diagonal)
and reduction block k (m_i y_j for the four quotient digits of block k). With W = 29 the
lanes can pass 2^64 before the end, so after some blocks a carry pass over the live lanes
4k+8 .. 4k+D+8 brings each back to W bits plus the carry of the lane below.

This simulates every lane at its worst (every digit of a at the lazy bound 2^W + 2^9 - 1,
m and y at 2^W - 1, the scalar step's extra carry below 2^40) and places passes greedily,
after a block only when the next block could push a lane past 2^64. It prints, per (W, D),
the blocks after which a pass is needed and the largest lane reached (log2): what
pass_after() in avx2_sqr.c encodes.

    python3 bench/avx2_sqr_bounds.py
"""
import math


def schedule(w, d):
    nb = d // 4
    amax = (1 << w) + (1 << 9) - 1
    my = ((1 << w) - 1) ** 2
    slack = 1 << 40

    def add_square(lanes, k):
        for jj in range(4):
            j = 4 * k + jj
            for i in range(j + 1, d):
                lanes[i + j] += 2 * amax * amax
            lanes[2 * j] += amax * amax

    def add_reduce(lanes, k):
        for jj in range(4):
            j = 4 * k + jj
            for i in range(d):
                lanes[i + j] += my

    def step(lanes, k):
        out = lanes[:]
        add_reduce(out, k)
        if k + 1 < nb:
            add_square(out, k + 1)
        return out

    lanes = [0] * (2 * d + 16)
    add_square(lanes, 0)
    passes, worst = [], 0
    for k in range(nb):
        lanes = step(lanes, k)
        worst = max(worst, max(lanes))
        if k + 1 < nb and max(step(lanes, k + 1)) + slack >= 1 << 64:
            lo, hi = 4 * k + 8, 4 * k + d + 8
            new = lanes[:]
            new[lo] = min(lanes[lo], (1 << w) - 1)
            for lane in range(lo + 1, hi + 1):
                new[lane] = min(lanes[lane], (1 << w) - 1) + (lanes[lane - 1] >> w)
            lanes = new
            passes.append(k)
    return passes, math.log2(worst + slack)


if __name__ == "__main__":
    for w, d in ((29, 36), (28, 56), (29, 72), (29, 108), (29, 144)):
        passes, worst = schedule(w, d)
        verdict = "ok" if worst < 64 else "OVERFLOW"
        print(f"W = {w}, D = {d}: passes after blocks {passes}, worst lane 2^{worst:.4f} ({verdict})")
