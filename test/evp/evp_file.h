/*
 * Reader of OpenSSL's evp_test data files (the .txt files of test/recipes/30-test_evp_data/
 * in OpenSSL's tree), as OpenSSL's test/evp_test.c and test/testutil/stanza.c read them:
 *
 * - a stanza is a run of "Key = Value" lines ended by an empty line (or the end of the file);
 *   spaces around the key and the value are dropped, and "Key=Value" is the same line;
 * - lines starting with '#' are comments, anywhere;
 * - "Title = ..." is not part of a stanza: it names the stanzas that follow it;
 * - a "PrivateKey = NAME" or "PublicKey = NAME" line is followed by a PEM block, taken
 *   verbatim up to and including its "-----END" line.
 *
 * The reader knows nothing of what the keywords mean: that is the runner's business, so a
 * file with stanza types or keywords the runner does not know still reads (the runner counts
 * such stanzas as unsupported). It fails only on a line that is not "Key = Value" (outside a
 * PEM block), a key that is empty, or a PEM block without its end line. No OpenSSL here.
 */
#ifndef CTRSA_EVP_FILE_H
#define CTRSA_EVP_FILE_H

#include <stddef.h>

/* One "Key = Value" line. */
typedef struct evp_pair {
    char *key;
    char *value;
    size_t line;                /* 1-based line number in the file */
} evp_pair;

typedef struct evp_stanza {
    evp_pair *pairs;
    size_t npairs;
    size_t line;                /* line of its first pair (what evp_test reports as file:line) */
    const char *title;          /* the last Title above it ("" before any); owned by the file */
    char *pem;                  /* the PEM block after a PrivateKey/PublicKey line, or NULL */
} evp_stanza;

typedef struct evp_file {
    char *name;                 /* the name used in reports, e.g. "3.0/evppkey_rsa.txt" */
    evp_stanza *stanzas;
    size_t nstanzas;
    char **titles;              /* every Title value, owned here */
    size_t ntitles;
} evp_file;

/*
 * Read the data file at `path` into *f, reported as `name`. 1 on success; on failure 0, with
 * the reason (and line) in err[0..errlen), and *f left empty.
 */
int evp_file_read(const char *path, const char *name, evp_file *f, char *err, size_t errlen);

void evp_file_free(evp_file *f);

#endif
