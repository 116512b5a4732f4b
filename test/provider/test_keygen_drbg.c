/*
 * Issue 10, defect 5: key generation draws its secrets (prime candidates, Miller-Rabin
 * bases) from the private DRBG. This test links provider/ops/keygen.c and the key object with
 * the linker wrapping ctrsa_random_bytes (public DRBG) and ctrsa_random_priv_bytes
 * (private DRBG): the wrappers count the bytes each gives, then call the real function.
 *
 * What is asserted: during one generation, the public DRBG gives exactly the k - 1 bytes of
 * the pairwise test's random message (which is public: it is signed and checked), and
 * nothing else; the private DRBG gives at least the bytes of every prime. Before the fix,
 * every prime candidate and Miller-Rabin base came from the public one. What cannot be
 * asserted here: which DRBG instance inside libcrypto served the call (RAND_bytes_ex and
 * RAND_priv_bytes_ex are trusted to use the public and private DRBGs of the context).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "keygen.h"
#include "prov.h"
#include "rsa_key.h"

static size_t public_bytes, private_bytes;
static OSSL_LIB_CTX *libctx;

int __real_ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len);
int __real_ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len);
int __wrap_ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len);
int __wrap_ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len);

int __wrap_ctrsa_random_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    public_bytes += len;
    return __real_ctrsa_random_bytes(prov, buf, len);
}

int __wrap_ctrsa_random_priv_bytes(const CTRSA_PROVCTX *prov, uint8_t *buf, size_t len)
{
    private_bytes += len;
    return __real_ctrsa_random_priv_bytes(prov, buf, len);
}

static void generate(const char *type, size_t bits, size_t primes)
{
    CTRSA_PROVCTX prov = { .handle = NULL, .libctx = libctx };
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits),
        OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, &primes),
        OSSL_PARAM_construct_end()
    };
    int pss = type[3] == '-';
    void *gctx = pss ? ctrsa_rsapss_gen_init(&prov, OSSL_KEYMGMT_SELECT_KEYPAIR, params)
                     : ctrsa_rsa_gen_init(&prov, OSSL_KEYMGMT_SELECT_KEYPAIR, params);
    CTRSA_KEY *key;
    size_t k = (bits + 7) / 8;

    assert_non_null(gctx);
    public_bytes = private_bytes = 0;
    key = ctrsa_gen(gctx, NULL, NULL);
    assert_non_null(key);
    fprintf(stderr, "# %s %zu bits, %zu primes: public DRBG %zu bytes, private DRBG %zu bytes\n",
            type, bits, primes, public_bytes, private_bytes);
    /* the pairwise test's message: k - 1 random bytes under a zero top byte */
    assert_int_equal(public_bytes, k - 1);
    /* at least one candidate per prime, and the blinding value of the pairwise test */
    assert_true(private_bytes >= k + k);
    assert_int_equal(ctrsa_key_bits(key), bits);
    ctrsa_key_free(key);
    ctrsa_gen_cleanup(gctx);
}

static void test_secrets_from_private_drbg(void **state)
{
    (void)state;
    generate("RSA", 2048, 2);
    generate("RSA", 1024, 3);
    generate("RSA-PSS", 1024, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secrets_from_private_drbg),
    };
    int failed;

    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL)
        return 1;
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    OSSL_LIB_CTX_free(libctx);
    return failed;
}
