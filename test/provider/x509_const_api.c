/*
 * The tests that build certificates, compiled once more (not linked, not run) against
 * OpenSSL 4.0's const-correct X509 API: there X509_get_subject_name() returns a
 * `const X509_NAME *`, which a test must not modify. Older headers return a modifiable
 * one; the macro below gives them 4.0's signature, so a test that writes through the
 * result fails to build here (werror) on every OpenSSL. CTRSA_CONST_X509_TEST names the
 * test file (meson passes it).
 */
#include <openssl/x509.h>

#define X509_get_subject_name(x) ((const X509_NAME *)X509_get_subject_name(x))
#define X509_get_issuer_name(x) ((const X509_NAME *)X509_get_issuer_name(x))

#include CTRSA_CONST_X509_TEST
