#!/bin/sh
# Runs a command (valgrind with the ct harness) with the engine forced onto one backend.
# valgrind's virtual CPU hides ADX from CPUID although it executes MULX/ADCX/ADOX, so the
# backend is forced with CTRSA_CPU_TRUST=1 (bignum/backend.c) after checking here, outside
# valgrind, that the real CPU has the instructions; without them the test is skipped (77).
# The avx2 backend (AVX2 kernels, ADX for the other sizes) is forced the same way, and so
# is avx512y: the avx512 backend's kernel body at 256 bits, AVX2 instructions only.
# AVX-512 (ifma, avx512) cannot run under valgrind at all and is refused.
# usage: on_backend.sh <portable|adx|avx2|avx512y> <command> [args...]
backend=$1
shift
has_flags() {
    for f in "$@"; do
        grep -qw "$f" /proc/cpuinfo 2>/dev/null || return 1
    done
    return 0
}
case "$backend" in
portable) ;;
adx)
    if ! has_flags bmi2 adx; then
        echo "on_backend: this CPU lacks BMI2/ADX, skipping the adx run"
        exit 77
    fi
    ;;
avx2 | avx512y)
    if ! has_flags avx2 bmi2 adx; then
        echo "on_backend: this CPU lacks AVX2/BMI2/ADX, skipping the $backend run"
        exit 77
    fi
    ;;
*)
    echo "on_backend: backend '$backend' cannot run under valgrind"
    exit 2
    ;;
esac
CTRSA_CPU=$backend CTRSA_CPU_TRUST=1 exec "$@"
