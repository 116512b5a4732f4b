/*
 * The constant-time harness: a table of named cases run under valgrind's memcheck.
 *
 * Each case marks its secret inputs undefined (ct_secret), runs the code under test, marks
 * the outputs defined again (ct_public) and only then checks them. Memcheck reports every
 * branch, loop bound or memory index that depends on an undefined byte, so a clean run means
 * no secret steered the code (for the inputs tried). Outside valgrind the marks are no-ops
 * and the cases still check their results.
 *
 * To add a group (the provider's private-key path, padding decoding): write ct_<group>.c
 * defining `const struct ct_case ct_<group>_cases[]` ending with a { NULL } entry, add it to
 * the groups[] table in ct_harness.c and to test/ct/meson.build.
 */
#ifndef CTRSA_TEST_CT_CASE_H
#define CTRSA_TEST_CT_CASE_H

#include <stddef.h>
#include <stdint.h>

struct ct_case {
    const char *name;  /* the command-line selector */
    const char *about; /* one line: what is secret and what runs */
    int (*run)(void);  /* 0 if every result checked out, -1 otherwise */
};

/* Groups, each ending with a { NULL } entry. */
extern const struct ct_case ct_bignum_cases[];
extern const struct ct_case ct_enc_padding_cases[];
extern const struct ct_case ct_private_key_cases[];
extern const struct ct_case ct_private_key_3072_cases[];
extern const struct ct_case ct_keygen_cases[];
/* Deliberately variable-time code: valgrind MUST report it (never part of "all"). */
extern const struct ct_case ct_planted_cases[];

/* Mark len bytes at p secret (undefined) or public (defined) for memcheck. */
void ct_secret(const void *p, size_t len);
void ct_public(const void *p, size_t len);

/* Mark bits [first, first + count) of the byte string at p public, bit i being bit i % 8 of
 * byte i / 8 (little-endian limbs: bit i of the number). The other bits keep their state. */
void ct_public_bits(const void *p, size_t first, size_t count);

/* A reproducible, public byte stream for the cases' inputs. */
uint64_t ct_rand64(void);
void ct_rand_bytes(void *p, size_t len);

/* Report a failed result check of case `name`; returns -1. */
int ct_fail(const char *name, const char *what);

#endif /* CTRSA_TEST_CT_CASE_H */
