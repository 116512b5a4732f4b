/*
 * The parser of the core's version string (provider/core_version.c), which decides whether
 * the message signature algorithms are offered (3.4 and later), and the version this very
 * process's core reports through a loaded provider's view: OpenSSL_version_num() agrees with
 * what the parser makes of OPENSSL_VERSION_STR's run-time counterpart.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <openssl/crypto.h>
#include "core_version.h"

static void test_parse(void **state)
{
    (void)state;
    assert_int_equal(ctrsa_parse_core_version("3.0.19"), 0x30000130UL);
    assert_int_equal(ctrsa_parse_core_version("3.4.0"), 0x30400000UL);
    assert_int_equal(ctrsa_parse_core_version("3.5.9"), 0x30500090UL);
    assert_int_equal(ctrsa_parse_core_version("3.6.5"), 0x30600050UL);
    assert_int_equal(ctrsa_parse_core_version("4.0.1"), 0x40000010UL);
    assert_int_equal(ctrsa_parse_core_version("3.10"), 0x30a00000UL);   /* no patch */
    assert_int_equal(ctrsa_parse_core_version("3.5.0-dev"), 0x30500000UL);
    assert_int_equal(ctrsa_parse_core_version("3.5.0 extra"), 0x30500000UL);
    /* Unreadable: no message signatures are offered. */
    assert_int_equal(ctrsa_parse_core_version(NULL), 0);
    assert_int_equal(ctrsa_parse_core_version(""), 0);
    assert_int_equal(ctrsa_parse_core_version("3"), 0);
    assert_int_equal(ctrsa_parse_core_version("3."), 0);
    assert_int_equal(ctrsa_parse_core_version("3.x"), 0);
    assert_int_equal(ctrsa_parse_core_version("3.5."), 0);
    assert_int_equal(ctrsa_parse_core_version("v3.5.0"), 0);
    assert_int_equal(ctrsa_parse_core_version("0.9.8"), 0);
    assert_int_equal(ctrsa_parse_core_version("16.0.0"), 0);
    assert_int_equal(ctrsa_parse_core_version("3.256.0"), 0);
    assert_int_equal(ctrsa_parse_core_version("3.5.1000"), 0);
}

/* The threshold: 3.3.x is below it, 3.4.0 on it. */
static void test_threshold(void **state)
{
    (void)state;
    assert_true(ctrsa_parse_core_version("3.3.9") < CTRSA_CORE_3_4);
    assert_true(ctrsa_parse_core_version("3.4.0") >= CTRSA_CORE_3_4);
    assert_true(ctrsa_parse_core_version("3.0.255") < CTRSA_CORE_3_4);
}

/* RSASVE's init refusing e <= 1, from the patch releases measured (core_version.h). */
static void test_rsasve_e_check(void **state)
{
    static const struct { const char *v; int refuses; } cases[] = {
        { "3.0.20", 0 }, { "3.4.9", 0 }, { "3.5.8", 0 }, { "3.5.9", 1 }, { "3.5.10", 1 },
        { "3.6.4", 0 }, { "3.6.5", 1 }, { "4.0.2", 0 }, { "4.0.3", 1 }, { "4.1.0", 1 },
        { "5.0.0", 1 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (ctrsa_core_rsasve_refuses_e_below_2(ctrsa_parse_core_version(cases[i].v))
            != cases[i].refuses)
            fail_msg("%s: expected %d", cases[i].v, cases[i].refuses);
}

/* This process's libcrypto, read as the core reports it: major, minor and patch agree. */
static void test_running_library(void **state)
{
    unsigned long v = ctrsa_parse_core_version(OpenSSL_version(OPENSSL_VERSION_STRING));

    (void)state;
    assert_int_not_equal(v, 0);
    assert_int_equal(v & 0xfffffff0UL, OpenSSL_version_num() & 0xfffffff0UL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_rsasve_e_check),
        cmocka_unit_test(test_running_library),
    };

    return cmocka_run_group_tests_name("core_version", tests, NULL, NULL);
}
