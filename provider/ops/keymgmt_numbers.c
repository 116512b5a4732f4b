/* Key numbers as OSSL_PARAMs. See keymgmt_numbers.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <openssl/crypto.h>
#include "core_version.h"
#include "keymgmt_numbers.h"

/* OpenSSL 3.3's name (absent from older headers; the value is what the core compares). */
#ifndef OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ
#define OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ "rsa-derive-from-pq"
#endif

_Static_assert(CTRSA_MAX_PRIMES == 5, "CTRSA_KEY_NUMBER_LIST names exactly 5 primes");

enum number_kind { KIND_N, KIND_E, KIND_D, KIND_FACTOR, KIND_EXPONENT, KIND_COEFFICIENT };

struct number_entry {
    const char *name;
    enum number_kind kind;
    size_t index;
};

#define CTRSA_NUMBER_ENTRY(name, kind, index) { name, KIND_##kind, index },
static const struct number_entry number_table[] = {
    CTRSA_KEY_NUMBER_LIST(CTRSA_NUMBER_ENTRY)
};
#define NUMBER_TABLE_SIZE (sizeof(number_table) / sizeof(number_table[0]))
/* CTRSA_KEY_NUMBER_LIST starts with n, e, d, in this order. */
enum { ENTRY_N = 0, ENTRY_E = 1, ENTRY_D = 2 };
_Static_assert(NUMBER_TABLE_SIZE == CTRSA_KEY_NUMBER_COUNT, "table and count agree");

static int kind_is_public(enum number_kind kind)
{
    return kind == KIND_N || kind == KIND_E;
}

/* Where an entry's number lives; NULL for a factor slot beyond the key's prime count. */
static const ctrsa_num *slot_of(const ctrsa_key_numbers *nums, const struct number_entry *e)
{
    switch (e->kind) {
    case KIND_N:
        return &nums->n;
    case KIND_E:
        return &nums->e;
    case KIND_D:
        return &nums->d;
    case KIND_FACTOR:
        return e->index < nums->nprimes ? &nums->primes[e->index] : NULL;
    case KIND_EXPONENT:
        return e->index < nums->nprimes ? &nums->exps[e->index] : NULL;
    case KIND_COEFFICIENT:
        return e->index + 1 < nums->nprimes ? &nums->coeffs[e->index] : NULL;
    }
    return NULL;
}

static ctrsa_num *slot_for_import(ctrsa_key_numbers *nums, enum number_kind kind, size_t index)
{
    switch (kind) {
    case KIND_N:
        return &nums->n;
    case KIND_E:
        return &nums->e;
    case KIND_D:
        return &nums->d;
    case KIND_FACTOR:
        return &nums->primes[index];
    case KIND_EXPONENT:
        return &nums->exps[index];
    case KIND_COEFFICIENT:
        return &nums->coeffs[index];
    }
    return NULL;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;

    memcpy(&first, &one, 1);
    return first == 1;
}

/* be[0..len) := the native-endian integer native[0..len). CT: only len leaks. */
static void native_to_be(uint8_t *be, const uint8_t *native, size_t len)
{
    size_t i;

    if (host_is_little_endian()) {
        for (i = 0; i < len; i++)
            be[i] = native[len - 1 - i];
    } else {
        memcpy(be, native, len);
    }
}

/* native[0..size) := be[0..len) zero-extended, native-endian; size >= len. CT: sizes leak. */
static void be_to_native(uint8_t *native, size_t size, const uint8_t *be, size_t len)
{
    size_t i;

    if (host_is_little_endian()) {
        for (i = 0; i < len; i++)
            native[i] = be[len - 1 - i];
        memset(native + len, 0, size - len);
    } else {
        memset(native, 0, size - len);
        memcpy(native + (size - len), be, len);
    }
}

/*
 * The bytes of v to publish: public numbers without leading zero bytes (at least one byte
 * kept), private numbers at their stored length so that their value does not steer the
 * length. CT: branches on the bytes of public numbers only.
 */
static ctrsa_num published(const ctrsa_num *v, int is_public)
{
    ctrsa_num out = *v;

    if (is_public)
        while (out.len > 1 && out.p[0] == 0) {
            out.p++;
            out.len--;
        }
    return out;
}

/* How many entries of `kind` are present. */
static size_t present_count(const OSSL_PARAM *const found[], enum number_kind kind)
{
    size_t i, count = 0;

    for (i = 0; i < NUMBER_TABLE_SIZE; i++)
        if (number_table[i].kind == kind && found[i] != NULL)
            count++;
    return count;
}

/* Forget every present entry of `kind`: the numbers the default provider drops. */
static void drop_kind(const OSSL_PARAM *found[], enum number_kind kind)
{
    size_t i;

    for (i = 0; i < NUMBER_TABLE_SIZE; i++)
        if (number_table[i].kind == kind)
            found[i] = NULL;
}

/* Refuse keys with more primes than CTRSA_MAX_PRIMES, rather than ignore their numbers. */
static int check_no_extra_primes(const CTRSA_PROVCTX *prov, const OSSL_PARAM params[])
{
    static const char *const prefixes[] = {
        OSSL_PKEY_PARAM_RSA_FACTOR, OSSL_PKEY_PARAM_RSA_EXPONENT, OSSL_PKEY_PARAM_RSA_COEFFICIENT
    };
    char name[32];
    size_t i, k;

    for (i = 0; i < 3; i++) {
        /* coefficients are numbered one lower than the factor they complete */
        for (k = CTRSA_MAX_PRIMES + (i == 2 ? 0 : 1); k <= 10; k++) {
            snprintf(name, sizeof(name), "%s%zu", prefixes[i], k);
            if (OSSL_PARAM_locate_const(params, name) != NULL) {
                CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY,
                            "parameter %s: keys with more than %d prime factors are not "
                            "supported", name, CTRSA_MAX_PRIMES);
                return 0;
            }
        }
    }
    return 1;
}

/*
 * Which private numbers to use, as OpenSSL's default provider decides (ossl_rsa_fromdata):
 * each kind is collected in the order of its names, absent names skipped (rsa-factor1 and
 * rsa-factor3 make a two-prime key); without d the key is public and the factors and CRT
 * values are ignored; with d:
 *   - no factors: CRT values are ignored (a key on d alone); cores from 3.3 refuse them;
 *   - one factor: refused;
 *   - k >= 2 factors with k exponents and k - 1 coefficients: used;
 *   - two factors otherwise: the CRT values are dropped and derived from d at import (the
 *     default computes without CRT; the results are the same); cores from 3.3 refuse a
 *     partial set and derive only when none is given;
 *   - k >= 3 factors and no CRT value, with derive (rsa-derive-from-pq, cores from 3.3):
 *     used, the CRT values derived at import (and exported);
 *   - three or more factors otherwise: refused (3.0's default crashes, 3.3's refuses).
 * found[] loses the dropped entries; *nprimes := the prime count (0 for none).
 * Public: which parameters are present (never their values).
 */
static int check_private_shape(const CTRSA_PROVCTX *prov, const OSSL_PARAM *found[],
                               int has_d, int derive, size_t *nprimes)
{
    size_t nf = present_count(found, KIND_FACTOR);
    size_t ne = present_count(found, KIND_EXPONENT);
    size_t nc = present_count(found, KIND_COEFFICIENT);
    int strict = prov->core_version >= CTRSA_CORE_3_3;

    *nprimes = 0;
    if (!has_d || (nf == 0 && !strict)) {
        drop_kind(found, KIND_FACTOR);
        drop_kind(found, KIND_EXPONENT);
        drop_kind(found, KIND_COEFFICIENT);
        return 1;
    }
    if (nf == 0) {
        if (ne + nc != 0) {
            CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART,
                        "CRT exponents or coefficients given without the prime factors");
            return 0;
        }
        return 1;
    }
    if (nf == 1) {
        CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART, "a key needs at least two prime factors");
        return 0;
    }
    if (ne == nf && nc == nf - 1) {
        *nprimes = nf;
        return 1;
    }
    if (nf == 2 && (!strict || ne + nc == 0)) {
        drop_kind(found, KIND_EXPONENT);
        drop_kind(found, KIND_COEFFICIENT);
        *nprimes = 2;
        return 1;
    }
    if (derive && ne + nc == 0) {
        *nprimes = nf;
        return 1;
    }
    CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART,
                "a key with %zu prime factors needs rsa-exponent1..%zu and "
                "rsa-coefficient1..%zu%s", nf, nf, nf - 1,
                nf == 2 ? ", or none of them" : "");
    return 0;
}

static int is_integer_param(const OSSL_PARAM *p)
{
    return p->data_type == OSSL_PARAM_UNSIGNED_INTEGER || p->data_type == OSSL_PARAM_INTEGER;
}

/* The entry of rsa-factor<index + 1>. */
static const OSSL_PARAM *factor_found(const OSSL_PARAM *const found[], size_t index)
{
    for (size_t i = 0; i < NUMBER_TABLE_SIZE; i++)
        if (number_table[i].kind == KIND_FACTOR && number_table[i].index == index)
            return found[i];
    return NULL;
}

/*
 * *derive := whether the CRT values are asked for, as the default provider of the loading
 * core reads rsa-derive-from-pq (ossl_rsa_fromdata, private selections only): from 3.3 an
 * int (OSSL_PARAM_get_int: any integer type that fits, not a string), non-zero asking, and
 * asking needs rsa-factor1 and rsa-factor2 by name, whether d is given or not; before 3.3
 * the name is unknown and ignored. 0 with an error raised when refused.
 * Public: the parameter's value and which numbers are present.
 */
static int read_derive_from_pq(const CTRSA_PROVCTX *prov, const OSSL_PARAM params[],
                               const OSSL_PARAM *const found[], int *derive)
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ);
    int v = 0;

    *derive = 0;
    if (prov->core_version < CTRSA_CORE_3_3 || p == NULL)
        return 1;
    if (!OSSL_PARAM_get_int(p, &v)) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "parameter %s is not an int",
                    OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ);
        return 0;
    }
    if (v != 0 && (factor_found(found, 0) == NULL || factor_found(found, 1) == NULL)) {
        CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART, "%s needs %s and %s",
                    OSSL_PKEY_PARAM_RSA_DERIVE_FROM_PQ, OSSL_PKEY_PARAM_RSA_FACTOR1,
                    OSSL_PKEY_PARAM_RSA_FACTOR2);
        return 0;
    }
    *derive = v != 0;
    return 1;
}

/*
 * be[0..*len) := the value of p (an integer parameter, checked by the caller).
 * Fails for a negative signed integer. CT: reads the top bit of the representation, which
 * is zero for every valid number; otherwise only data_size steers the code.
 */
static int read_integer(const CTRSA_PROVCTX *prov, const OSSL_PARAM *p, uint8_t *be,
                        size_t *len)
{
    if (p->data_size == 0 || p->data == NULL) {
        be[0] = 0;
        *len = 1;
        return 1;
    }
    native_to_be(be, p->data, p->data_size);
    if (p->data_type == OSSL_PARAM_INTEGER && (be[0] & 0x80) != 0) {
        CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "parameter %s is negative", p->key);
        return 0;
    }
    *len = p->data_size;
    return 1;
}

int ctrsa_param_numbers_read(const CTRSA_PROVCTX *prov, const OSSL_PARAM params[],
                             int include_private, ctrsa_param_numbers *out)
{
    const OSSL_PARAM *found[NUMBER_TABLE_SIZE];
    size_t i, total = 0, used = 0, nprimes = 0;
    size_t rank[KIND_COEFFICIENT + 1] = {0};
    int derive = 0;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < NUMBER_TABLE_SIZE; i++) {
        const OSSL_PARAM *p = NULL;

        if (include_private || kind_is_public(number_table[i].kind))
            p = OSSL_PARAM_locate_const(params, number_table[i].name);
        found[i] = p;
        if (p == NULL)
            continue;
        if (!is_integer_param(p)) {
            CTRSA_RAISE(prov, CTRSA_R_INVALID_KEY, "parameter %s is not an integer", p->key);
            return 0;
        }
    }
    if (found[ENTRY_N] == NULL || found[ENTRY_E] == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MISSING_KEY_PART, "the key needs both n and e");
        return 0;
    }
    if (include_private
        && (!check_no_extra_primes(prov, params)
            || !read_derive_from_pq(prov, params, found, &derive)
            || !check_private_shape(prov, found, found[ENTRY_D] != NULL, derive, &nprimes)))
        return 0;
    for (i = 0; i < NUMBER_TABLE_SIZE; i++)
        if (found[i] != NULL)
            total += found[i]->data_size > 0 ? found[i]->data_size : 1;

    out->buf = OPENSSL_malloc(total);
    if (out->buf == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "no memory for %zu bytes of key numbers",
                    total);
        return 0;
    }
    out->buf_len = total;
    for (i = 0; i < NUMBER_TABLE_SIZE; i++) {
        ctrsa_num *slot;
        ctrsa_num value;
        size_t len = 0;

        if (found[i] == NULL)
            continue;
        if (!read_integer(prov, found[i], out->buf + used, &len)) {
            ctrsa_param_numbers_release(out);
            return 0;
        }
        value.p = out->buf + used;
        value.len = len;
        used += len;
        /* the kind's next slot: numbering gaps close up, as in the default provider */
        slot = slot_for_import(&out->nums, number_table[i].kind, rank[number_table[i].kind]++);
        *slot = published(&value, kind_is_public(number_table[i].kind));
    }
    out->nums.nprimes = nprimes;
    out->nums.derive_from_pq = derive;
    return 1;
}

void ctrsa_param_numbers_release(ctrsa_param_numbers *in)
{
    if (in->buf != NULL) {
        ctrsa_cleanse(in->buf, in->buf_len);
        OPENSSL_free(in->buf);
    }
    memset(in, 0, sizeof(*in));
}

/* The array and its values, in one allocation whose size is kept for the wipe. */
typedef struct param_block {
    size_t total;
    OSSL_PARAM params[];
} param_block;

/* The number for entry e, if the key has it and the selection includes it. */
static const ctrsa_num *exported(const ctrsa_key_numbers *nums, const struct number_entry *e,
                                 int include_private)
{
    const ctrsa_num *s;

    if (!include_private && !kind_is_public(e->kind))
        return NULL;
    s = slot_of(nums, e);
    return s != NULL && s->len > 0 ? s : NULL;
}

OSSL_PARAM *ctrsa_param_numbers_array(const CTRSA_PROVCTX *prov,
                                      const ctrsa_key_numbers *nums, int include_private,
                                      size_t extra, size_t *count)
{
    size_t i, n = 0, bytes = 0, head;
    param_block *blk;
    uint8_t *values;

    for (i = 0; i < NUMBER_TABLE_SIZE; i++) {
        const ctrsa_num *s = exported(nums, &number_table[i], include_private);

        if (s == NULL)
            continue;
        n++;
        bytes += published(s, kind_is_public(number_table[i].kind)).len;
    }
    head = sizeof(param_block) + (n + extra + 1) * sizeof(OSSL_PARAM);
    blk = OPENSSL_malloc(head + bytes);
    if (blk == NULL) {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "no memory to export the key");
        return NULL;
    }
    blk->total = head + bytes;
    values = (uint8_t *)blk + head;
    n = 0;
    for (i = 0; i < NUMBER_TABLE_SIZE; i++) {
        const ctrsa_num *s = exported(nums, &number_table[i], include_private);
        ctrsa_num v;

        if (s == NULL)
            continue;
        v = published(s, kind_is_public(number_table[i].kind));
        be_to_native(values, v.len, v.p, v.len);
        blk->params[n++] = OSSL_PARAM_construct_BN(number_table[i].name, values, v.len);
        values += v.len;
    }
    for (i = n; i < n + extra + 1; i++)
        blk->params[i] = OSSL_PARAM_construct_end();
    *count = n;
    return blk->params;
}

void ctrsa_param_numbers_free_array(OSSL_PARAM *params)
{
    param_block *blk;

    if (params == NULL)
        return;
    blk = (param_block *)((uint8_t *)params - offsetof(param_block, params));
    ctrsa_cleanse(blk, blk->total);
    OPENSSL_free(blk);
}

/* Write v into the integer parameter p, as OSSL_PARAM_set_BN does. CT: as published(). */
static int write_number(OSSL_PARAM *p, const ctrsa_num *v, int is_public)
{
    ctrsa_num pub = published(v, is_public);
    size_t need;

    if (!is_integer_param(p))
        return 0;
    /* a signed integer gets a zero byte on top so that the value stays non-negative */
    need = pub.len + (p->data_type == OSSL_PARAM_INTEGER ? 1 : 0);
    p->return_size = need;
    if (p->data == NULL)
        return 1;
    if (p->data_size < need)
        return 0;
    be_to_native(p->data, p->data_size, pub.p, pub.len);
    p->return_size = p->data_size;
    return 1;
}

int ctrsa_param_numbers_wanted(const OSSL_PARAM params[])
{
    int wanted = 0;
    for (size_t i = 0; i < NUMBER_TABLE_SIZE; i++)
        if (OSSL_PARAM_locate_const(params, number_table[i].name) != NULL) {
            if (!kind_is_public(number_table[i].kind))
                return 2;
            wanted = 1;
        }
    return wanted;
}

int ctrsa_param_numbers_get(const ctrsa_key_numbers *nums, OSSL_PARAM params[])
{
    size_t i;

    for (i = 0; i < NUMBER_TABLE_SIZE; i++) {
        OSSL_PARAM *p = OSSL_PARAM_locate(params, number_table[i].name);
        const ctrsa_num *s;

        if (p == NULL)
            continue;
        s = exported(nums, &number_table[i], 1);
        if (s != NULL && !write_number(p, s, kind_is_public(number_table[i].kind)))
            return 0;
    }
    return 1;
}
