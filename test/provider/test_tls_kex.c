/*
 * TLS 1.2 RSA key exchange (AES128-GCM-SHA256) between libssl endpoints in memory, with the
 * server's private key in the provider under test and the client on the default provider
 * alone. The ClientKeyExchange is caught on its way to the server and, in the negative
 * cases, its encrypted pre-master secret replaced by one of our making: another valid
 * pre-master, a wrong client version, a wrong length, bad PKCS#1 padding. The server must
 * not be able to tell them apart (Bleichenbacher): every one ends in the same alert, at the
 * same point (the client's Finished), with the same error, exactly as with OpenSSL's
 * default provider as the server; and the decryption itself never fails (the trace shows
 * one "decrypt ... pad=pkcs1-tls" per handshake).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "testutil.h"

#define K 256   /* 2048-bit key */

static tu_env env;                 /* the server's: provider under test + default */
static OSSL_LIB_CTX *client_libctx; /* the client's: default provider only */
static OSSL_PROVIDER *client_default;
static EVP_PKEY *server_key;       /* made by the default provider */
static X509 *server_cert;
static char trace_path[64];
static char server_propq[128];     /* "?provider=<under test>": preferred, as provider.cnf */

/* How the ClientKeyExchange is treated on its way to the server. */
enum tamper { T_NONE, T_OTHER_PMS, T_WRONG_VERSION, T_SHORT_PMS, T_NOT_TYPE2, T_NO_SEPARATOR };
static const char *const tamper_names[] = { "untouched", "another valid pre-master",
                                            "wrong client version", "47-byte pre-master",
                                            "block type 1", "no zero separator" };

struct outcome {
    int client_done, server_done;  /* handshake completed */
    int alert;                     /* alert the server sent (SSL_CB_WRITE_ALERT value), 0 */
    unsigned long server_reason;   /* ERR_GET_REASON of the server's last error, 0 */
    int replaced;                  /* the ClientKeyExchange was found (and replaced) */
};

static void server_info_cb(const SSL *ssl, int where, int ret)
{
    struct outcome *o = SSL_get_app_data(ssl);

    if ((where & SSL_CB_WRITE_ALERT) != 0 && o->alert == 0)
        o->alert = ret;
}

/* Count the lines of the trace file naming `line` (whole lines). */
static size_t trace_count(const char *line)
{
    FILE *f = fopen(trace_path, "r");
    char buf[256];
    size_t n = 0;

    if (f == NULL)
        return 0;
    while (fgets(buf, sizeof(buf), f) != NULL) {
        buf[strcspn(buf, "\n")] = '\0';
        if (strcmp(buf, line) == 0)
            n++;
    }
    fclose(f);
    return n;
}

static int setup(void **state)
{
    X509_NAME *name = NULL;   /* our own: OpenSSL 4.0's X509_get_subject_name() is const */
    int fd, ok;

    (void)state;
    /* The trace file must be named before the module first looks (once per process). */
    snprintf(trace_path, sizeof(trace_path), "/tmp/ctrsa-tls-kex-XXXXXX");
    fd = mkstemp(trace_path);
    if (fd < 0)
        return -1;
    close(fd);
    setenv("CTRSA_TRACE", trace_path, 1);
    if (!tu_env_init(&env))
        return -1;
    snprintf(server_propq, sizeof(server_propq), "?provider=%s", tu_provider_name());
    client_libctx = OSSL_LIB_CTX_new();
    if (client_libctx == NULL
        || (client_default = OSSL_PROVIDER_load(client_libctx, "default")) == NULL)
        return -1;

    server_key = EVP_PKEY_Q_keygen(env.libctx, TU_PROPQ_DEFAULT, "RSA", (size_t)(K * 8));
    server_cert = X509_new_ex(env.libctx, TU_PROPQ_DEFAULT);
    if (server_key == NULL || server_cert == NULL)
        return -1;
    name = X509_NAME_new();
    ok = name != NULL
        && X509_set_version(server_cert, X509_VERSION_3)
        && ASN1_INTEGER_set(X509_get_serialNumber(server_cert), 1)
        && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                      (const unsigned char *)"ctrsa tls kex", -1, -1, 0)
        && X509_set_subject_name(server_cert, name)
        && X509_set_issuer_name(server_cert, name);
    X509_NAME_free(name);
    if (!ok
        || X509_gmtime_adj(X509_getm_notBefore(server_cert), -3600) == NULL
        || X509_gmtime_adj(X509_getm_notAfter(server_cert), 86400) == NULL
        || !X509_set_pubkey(server_cert, server_key)
        || X509_sign(server_cert, server_key, EVP_sha256()) <= 0) {
        tu_print_errors("certificate");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    X509_free(server_cert);
    EVP_PKEY_free(server_key);
    OSSL_PROVIDER_unload(client_default);
    OSSL_LIB_CTX_free(client_libctx);
    tu_env_free(&env);
    unlink(trace_path);
    return 0;
}

/* ct := an encryption under the server's public key (default provider) of the block the
 * tamper mode calls for. */
static void make_premaster(enum tamper t, unsigned char ct[K])
{
    unsigned char msg[K];
    size_t mlen = 48, ctlen = K;
    int pad = RSA_PKCS1_PADDING;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(env.libctx, server_key, TU_PROPQ_DEFAULT);

    assert_non_null(ctx);
    assert_int_equal(RAND_bytes(msg, sizeof(msg)), 1);
    msg[0] = 0x03;
    msg[1] = 0x03;
    switch (t) {
    case T_WRONG_VERSION:
        msg[1] = 0x02;
        break;
    case T_SHORT_PMS:
        mlen = 47;
        break;
    case T_NOT_TYPE2:       /* 00 01 PS 00 M: a signature block, not an encryption block */
    case T_NO_SEPARATOR:    /* 00 02 followed by nonzero bytes only */
        pad = RSA_NO_PADDING;
        mlen = K;
        for (size_t i = 2; i < K; i++)
            msg[i] = (unsigned char)(msg[i] | 0x01);
        msg[0] = 0x00;
        msg[1] = t == T_NOT_TYPE2 ? 0x01 : 0x02;
        if (t == T_NOT_TYPE2)
            msg[K - 49] = 0x00;
        break;
    default:
        break;
    }
    assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
    assert_true(EVP_PKEY_CTX_set_rsa_padding(ctx, pad) > 0);
    assert_int_equal(EVP_PKEY_encrypt(ctx, ct, &ctlen, msg, mlen), 1);
    assert_int_equal(ctlen, K);
    EVP_PKEY_CTX_free(ctx);
}

/* Move what `from` has written into `to`; replace the ClientKeyExchange's ciphertext. */
static void carry(BIO *from, BIO *to, enum tamper t, struct outcome *o)
{
    unsigned char buf[16384];
    size_t len = 0, off = 0;
    int n;

    while ((n = BIO_read(from, buf + len, (int)(sizeof(buf) - len))) > 0)
        len += (size_t)n;
    if (len == 0)
        return;
    /* TLS records: type(1) version(2) length(2) body; handshake type 16 is the CKE,
     * whose RSA body is a 2-byte length and the encrypted pre-master. */
    while (off + 5 <= len) {
        size_t rlen = ((size_t)buf[off + 3] << 8) | buf[off + 4];

        if (buf[off] == 22 && rlen >= 4 + 2 + K && off + 5 + rlen <= len
            && buf[off + 5] == 16) {
            unsigned char *body = buf + off + 5 + 4;

            assert_int_equal(((size_t)body[0] << 8) | body[1], K);
            if (t != T_NONE)
                make_premaster(t, body + 2);
            o->replaced = 1;
        }
        off += 5 + rlen;
    }
    assert_int_equal(BIO_write(to, buf, (int)len), (int)len);
}

/* One handshake, then (if it completed) a message each way. */
static void handshake(const char *server_q, enum tamper t, struct outcome *o)
{
    SSL_CTX *sctx = SSL_CTX_new_ex(env.libctx, server_q, TLS_server_method());
    SSL_CTX *cctx = SSL_CTX_new_ex(client_libctx, NULL, TLS_client_method());
    BIO *c_in = BIO_new(BIO_s_mem()), *c_out = BIO_new(BIO_s_mem());
    BIO *s_in = BIO_new(BIO_s_mem()), *s_out = BIO_new(BIO_s_mem());
    SSL *server, *client;
    int round, r;

    memset(o, 0, sizeof(*o));
    assert_non_null(sctx);
    assert_non_null(cctx);
    assert_true(c_in != NULL && c_out != NULL && s_in != NULL && s_out != NULL);
    BIO_set_mem_eof_return(c_in, -1);
    BIO_set_mem_eof_return(s_in, -1);
    assert_int_equal(SSL_CTX_set_min_proto_version(cctx, TLS1_2_VERSION), 1);
    assert_int_equal(SSL_CTX_set_max_proto_version(cctx, TLS1_2_VERSION), 1);
    assert_int_equal(SSL_CTX_set_cipher_list(cctx, "AES128-GCM-SHA256"), 1);
    assert_int_equal(SSL_CTX_set_cipher_list(sctx, "AES128-GCM-SHA256"), 1);
    assert_int_equal(SSL_CTX_use_certificate(sctx, server_cert), 1);
    assert_int_equal(SSL_CTX_use_PrivateKey(sctx, server_key), 1);
    SSL_CTX_set_verify(cctx, SSL_VERIFY_NONE, NULL);
    server = SSL_new(sctx);
    client = SSL_new(cctx);
    assert_non_null(server);
    assert_non_null(client);
    SSL_set_bio(client, c_in, c_out);
    SSL_set_bio(server, s_in, s_out);
    SSL_set_app_data(server, o);
    SSL_set_info_callback(server, server_info_cb);
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);

    for (round = 0; round < 20 && !(o->client_done && o->server_done); round++) {
        if (!o->client_done) {
            r = SSL_do_handshake(client);
            if (r == 1)
                o->client_done = 1;
            else if (SSL_get_error(client, r) != SSL_ERROR_WANT_READ)
                break;
        }
        ERR_clear_error();
        carry(c_out, s_in, t, o);
        if (!o->server_done) {
            r = SSL_do_handshake(server);
            if (r == 1) {
                o->server_done = 1;
            } else if (SSL_get_error(server, r) != SSL_ERROR_WANT_READ) {
                o->server_reason = ERR_GET_REASON(ERR_peek_last_error());
                break;
            }
        }
        ERR_clear_error();
        carry(s_out, c_in, T_NONE, o);
    }
    ERR_clear_error();
    if (o->client_done && o->server_done) {
        char got[16];

        /* Data both ways. */
        assert_int_equal(SSL_write(client, "ping", 4), 4);
        carry(c_out, s_in, T_NONE, o);
        assert_int_equal(SSL_read(server, got, sizeof(got)), 4);
        assert_memory_equal(got, "ping", 4);
        assert_int_equal(SSL_write(server, "pong", 4), 4);
        carry(s_out, c_in, T_NONE, o);
        assert_int_equal(SSL_read(client, got, sizeof(got)), 4);
        assert_memory_equal(got, "pong", 4);
    }
    SSL_free(server);
    SSL_free(client);
    SSL_CTX_free(sctx);
    SSL_CTX_free(cctx);
}

static void test_rsa_kex_completes(void **state)
{
    char line[64];
    struct outcome o;
    size_t before;
    (void)state;

    snprintf(line, sizeof(line), "ctrsa: decrypt bits=%d pad=pkcs1-tls", K * 8);
    before = trace_count(line);
    handshake(server_propq, T_NONE, &o);
    assert_true(o.replaced);
    assert_true(o.client_done);
    assert_true(o.server_done);
    assert_int_equal(o.alert, 0);
    if (strcmp(tu_provider_name(), "ctrsa") == 0)
        assert_int_equal(trace_count(line), before + 1);
}

static void test_tampered_premaster_indistinguishable(void **state)
{
    struct outcome ref, o;
    char line[64];
    size_t before, t;
    int ctrsa = strcmp(tu_provider_name(), "ctrsa") == 0;
    (void)state;

    snprintf(line, sizeof(line), "ctrsa: decrypt bits=%d pad=pkcs1-tls", K * 8);
    /* What OpenSSL's own server does with a pre-master it cannot use. */
    handshake(TU_PROPQ_DEFAULT, T_OTHER_PMS, &ref);
    assert_true(ref.replaced);
    assert_false(ref.server_done);
    assert_int_not_equal(ref.alert, 0);
    assert_int_not_equal(ref.server_reason, 0);
    print_message("default provider server: alert \"%s\", reason %lu (%s)\n",
                  SSL_alert_desc_string_long(ref.alert), ref.server_reason,
                  ERR_reason_error_string(ERR_PACK(ERR_LIB_SSL, 0, ref.server_reason)));

    for (t = T_OTHER_PMS; t <= T_NO_SEPARATOR; t++) {
        /* The default provider's server: the same for every kind of bad pre-master. */
        handshake(TU_PROPQ_DEFAULT, (enum tamper)t, &o);
        assert_true(o.replaced);
        if (o.server_done || o.alert != ref.alert || o.server_reason != ref.server_reason)
            fail_msg("default provider, %s: alert %d reason %lu, want %d %lu",
                     tamper_names[t], o.alert, o.server_reason, ref.alert, ref.server_reason);
        /* Ours: the same as OpenSSL's, and the decryption itself went through. */
        before = trace_count(line);
        handshake(server_propq, (enum tamper)t, &o);
        assert_true(o.replaced);
        if (o.server_done || o.alert != ref.alert || o.server_reason != ref.server_reason)
            fail_msg("%s, %s: alert \"%s\" reason %lu, want \"%s\" %lu", tu_provider_name(),
                     tamper_names[t], SSL_alert_desc_string_long(o.alert), o.server_reason,
                     SSL_alert_desc_string_long(ref.alert), ref.server_reason);
        if (ctrsa && trace_count(line) != before + 1)
            fail_msg("%s: the trace does not show one TLS pre-master decryption by ctrsa",
                     tamper_names[t]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rsa_kex_completes),
        cmocka_unit_test(test_tampered_premaster_indistinguishable),
    };

    return cmocka_run_group_tests_name("tls_kex", tests, setup, teardown);
}
