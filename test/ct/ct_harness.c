/*
 * The constant-time harness: runs named cases (ct_case.h) selected on the command line, for
 * valgrind's memcheck to watch.
 *
 *   ct_harness all            every case except the planted leaks
 *   ct_harness <group>        every case of a group (bignum, planted, ...)
 *   ct_harness <case>...      the named cases
 *   ct_harness --list         the cases
 *
 * Exit status: 0 if every selected case checked out, 1 if a result was wrong, 2 on usage
 * errors. Secret-dependent control flow shows up as memcheck errors (run it with
 * valgrind --error-exitcode=1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "ct_case.h"

static const struct group {
    const char *name;
    const struct ct_case *cases;
    int in_all; /* part of "all" */
} groups[] = {
    { "bignum", ct_bignum_cases, 1 },
    { "enc-padding", ct_enc_padding_cases, 1 },
    { "private-key", ct_private_key_cases, 1 },
    { "private-key-3072", ct_private_key_3072_cases, 1 },
    { "keygen", ct_keygen_cases, 1 },
    { "planted", ct_planted_cases, 0 },
};

#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

void ct_secret(const void *p, size_t len)
{
    (void)VALGRIND_MAKE_MEM_UNDEFINED(p, len);
}

void ct_public(const void *p, size_t len)
{
    (void)VALGRIND_MAKE_MEM_DEFINED(p, len);
}

void ct_public_bits(const void *p, size_t first, size_t count)
{
    if (count == 0 || !RUNNING_ON_VALGRIND)
        return;
    const uint8_t *base = (const uint8_t *)p + first / 8;
    size_t start = first % 8, nbytes = (start + count + 7) / 8;
    uint8_t *vbits = malloc(nbytes);
    if (vbits == NULL)
        abort();
    /* a vbit of 1 means undefined */
    if (VALGRIND_GET_VBITS(base, vbits, nbytes) == 1) {
        for (size_t i = start; i < start + count; i++)
            vbits[i / 8] &= (uint8_t)~(1u << (i % 8));
        (void)VALGRIND_SET_VBITS(base, vbits, nbytes);
    }
    free(vbits);
}

static uint64_t rng_state = 0x6374727361637421u;

uint64_t ct_rand64(void)
{
    /* splitmix64: public test inputs only */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void ct_rand_bytes(void *p, size_t len)
{
    uint8_t *b = p;
    for (size_t i = 0; i < len; i++)
        b[i] = (uint8_t)ct_rand64();
}

int ct_fail(const char *name, const char *what)
{
    fprintf(stderr, "ct case %s: wrong result: %s\n", name, what);
    return -1;
}

static int run_case(const struct ct_case *c)
{
    fprintf(stderr, "ct case %-24s %s\n", c->name, c->about);
    return c->run() == 0 ? 0 : 1;
}

static void list_cases(void)
{
    for (size_t g = 0; g < N_GROUPS; g++)
        for (const struct ct_case *c = groups[g].cases; c->name != NULL; c++)
            printf("%-10s %-24s %s\n", groups[g].name, c->name, c->about);
}

int main(int argc, char **argv)
{
    int failed = 0, ran = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s all | --list | <group> | <case>...\n", argv[0]);
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        const char *sel = argv[a];
        int matched = 0;
        if (strcmp(sel, "--list") == 0) {
            list_cases();
            return 0;
        }
        for (size_t g = 0; g < N_GROUPS; g++) {
            int whole = strcmp(sel, groups[g].name) == 0 ||
                        (strcmp(sel, "all") == 0 && groups[g].in_all);
            for (const struct ct_case *c = groups[g].cases; c->name != NULL; c++) {
                if (whole || strcmp(sel, c->name) == 0) {
                    failed |= run_case(c);
                    ran++;
                    matched = 1;
                }
            }
        }
        if (!matched) {
            fprintf(stderr, "no case or group named '%s' (try --list)\n", sel);
            return 2;
        }
    }
    fprintf(stderr, "ct harness: %d case(s) run, %s\n", ran, failed ? "RESULT ERRORS" : "results ok");
    return failed ? 1 : 0;
}
