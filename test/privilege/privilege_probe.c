/*
 * privilege_probe: what ctrsa does inside a process whose privileges differ from its
 * caller's (run by test/privilege/privilege_test.sh).
 *
 *   privilege_probe MODULE_DIR KEY_PEM [CHROOT_DIR UID]
 *
 * Loads ctrsa and the default provider from MODULE_DIR (by API, not by the environment),
 * prints "euid: N", "backend: NAME" (from ctrsa's build info) and "folders open: N" (the
 * process's descriptors that are folders: one outside a chroot would be a way out of it),
 * reads the RSA key, and
 * with CHROOT_DIR and UID then chroots there and drops to UID, as a daemon such as haproxy
 * does after loading its configuration. Then it signs once in this process and once in a
 * forked child, each checked to have run in ctrsa, and prints "signed: N" (2 when both did).
 * Exit status: 0 when both signatures were made in ctrsa, 1 otherwise, 2 on bad usage; a
 * provider that does not load prints "ctrsa: not loaded" and exits 3.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>

/* 1 if one PKCS#1 v1.5 signature over a fixed digest is made in ctrsa. */
static int sign_in_ctrsa(EVP_PKEY *key)
{
    unsigned char digest[32] = { 1, 2, 3 }, sig[2048];
    size_t siglen = sizeof(sig);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, "provider=ctrsa");
    int ok = ctx != NULL && EVP_PKEY_sign_init(ctx) > 0 &&
             EVP_PKEY_CTX_set_rsa_padding(ctx, 1 /* RSA_PKCS1_PADDING */) > 0 &&
             EVP_PKEY_sign(ctx, sig, &siglen, digest, sizeof(digest)) > 0 &&
             strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_CTX_get0_provider(ctx)), "ctrsa") == 0;

    if (!ok)
        ERR_print_errors_fp(stderr);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

int main(int argc, char **argv)
{
    OSSL_PROVIDER *ctrsa, *deflt;
    char *buildinfo = NULL;
    OSSL_PARAM params[] = { OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &buildinfo, 0),
                            OSSL_PARAM_END };
    const char *backend;
    EVP_PKEY *key = NULL;
    FILE *f;
    struct stat st;
    int signed_n = 0, status, folders = 0;
    pid_t child;

    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: %s MODULE_DIR KEY_PEM [CHROOT_DIR UID]\n", argv[0]);
        return 2;
    }
    printf("euid: %ld\n", (long)geteuid());
    if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1]))
        return 2;
    ctrsa = OSSL_PROVIDER_load(NULL, "ctrsa");
    deflt = OSSL_PROVIDER_load(NULL, "default");
    if (ctrsa == NULL || deflt == NULL) {
        ERR_print_errors_fp(stderr);
        printf("ctrsa: not loaded\n");
        return 3;
    }
    if (!OSSL_PROVIDER_get_params(ctrsa, params) || buildinfo == NULL)
        return 1;
    backend = strstr(buildinfo, "bignum backend: ");
    printf("backend: %.*s\n", backend != NULL ? (int)strcspn(backend + 16, " ;") : 1,
           backend != NULL ? backend + 16 : "?");
    for (int fd = 0; fd < 1024; fd++)
        folders += fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    printf("folders open: %d\n", folders);
    if ((f = fopen(argv[2], "r")) != NULL) {
        key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
        fclose(f);
    }
    if (key == NULL) {
        fprintf(stderr, "cannot read the key %s\n", argv[2]);
        return 2;
    }
    if (argc == 5) {
        uid_t uid = (uid_t)strtoul(argv[4], NULL, 10);
        if (chroot(argv[3]) != 0 || chdir("/") != 0 || setgroups(0, NULL) != 0 ||
            setgid((gid_t)uid) != 0 || setuid(uid) != 0) {
            perror("chroot or setuid");
            return 2;
        }
    }
    fflush(stdout);
    child = fork();
    if (child == 0)
        _exit(sign_in_ctrsa(key) ? 0 : 1);
    signed_n += sign_in_ctrsa(key);
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0)
        signed_n++;
    printf("signed: %d\n", signed_n);
    EVP_PKEY_free(key);
    OSSL_PROVIDER_unload(ctrsa);
    OSSL_PROVIDER_unload(deflt);
    return signed_n == 2 ? 0 : 1;
}
