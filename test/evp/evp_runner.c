/*
 * OpenSSL's own RSA test vectors (its evp_test data files, test/evp/data/<version>/) run
 * through ctrsa and through OpenSSL's default provider, stanza by stanza.
 *
 * Usage: evp_runner [--provider NAME] [--expected LIST] DATAFILE...
 *
 * Of the DATAFILEs, those of one release folder run: the newest not above the running
 * OpenSSL's version (data/3.0 on 3.x, data/4.0 on 4.0 and later); the others are named and
 * left out.
 *
 * Keys are decoded once, by the default provider's decoders; every other stanza then runs
 * twice in one library context holding both providers: with every operation fetched with
 * "provider=ctrsa" (the key exported to ctrsa as EVP does for any application; each
 * operation is checked with EVP_PKEY_CTX_get0_provider to have run there), and with
 * "provider=default". A stanza passes on a provider when its outcome is the stanza's: the
 * expected output, or the expected failure (Result) at the expected stage. evp_ops.c holds
 * the stanza types; the semantics are those of OpenSSL 3.0's test/evp_test.c.
 *
 * The test fails on:
 * - a stanza the default provider passes and ctrsa does not, unless LIST names it (one line
 *   per stanza: data file, line of its first pair, cause);
 * - a stanza LIST names that ctrsa now passes ("fixed: remove it from the list"), or a LIST
 *   line that names no stanza: the list can only shrink;
 * - a stanza the default provider fails, when the data files are those of the running
 *   OpenSSL's own version (data/3.0 on a 3.0.x libcrypto): OpenSSL passes its own vectors,
 *   so such a failure is this runner's (on another version the default provider's own
 *   changes show, and are reported, not judged).
 *
 * With --provider default (or CTRSA_TEST_PROVIDER=default) only the default provider runs:
 * the runner checks itself against OpenSSL's own verdicts.
 *
 * Skipped, and counted: stanzas for providers other than the default one (Availablein:
 * legacy, fips), FIPS security checks (Securitycheck), newer evp_test's extended tests, and
 * stanza types or keywords this runner does not implement ("unsupported"; there are none in
 * the 3.0 files). Reason lines are checked on both providers, as evp_test checks them: the
 * reason string of the first error must be the one the stanza names (ctrsa raises the
 * default provider's texts where the vectors name one).
 *
 * The closing line is "evp: N passed, N failed, N skipped", counting stanzas.
 */
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "evp_file.h"
#include "evp_ops.h"
#include "testutil.h"

#define MAX_PASSES 2

/* ---- a growing text buffer for the reports ---- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s != NULL ? t->s + t->len : NULL, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        {
            size_t ncap = (t->cap + (size_t)n + 1) * 2;
            char *q = realloc(t->s, ncap);

            if (q == NULL)
                return;
            t->s = q;
            t->cap = ncap;
        }
    }
}

/* ---- the list of known differences ---- */

typedef struct listed {
    char *file;                 /* as in reports: "3.0/evppkey_rsa.txt" */
    size_t line;                /* the stanza's first pair */
    char *tag;                  /* the cause */
    size_t at;                  /* its own line in the list */
    int matched;                /* it named a stanza of a file that ran */
} listed;

static listed *list;
static size_t nlist;

static int load_list(const char *path)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, at = 0;
    ssize_t n;
    int ok = 1;

    if (in == NULL) {
        perror(path);
        return 0;
    }
    while (ok && (n = getline(&line, &cap, in)) > 0) {
        char file[256], tag[64], extra[2];
        size_t lineno;
        listed *q;

        at++;
        if (line[0] == '#' || strspn(line, " \t\r\n") == (size_t)n)
            continue;
        if (sscanf(line, "%255s %zu %63s %1s", file, &lineno, tag, extra) != 3) {
            fprintf(stderr, "%s:%zu: expected \"<data file> <line> <cause>\"\n", path, at);
            ok = 0;
            break;
        }
        q = realloc(list, (nlist + 1) * sizeof(*q));
        if (q == NULL) {
            ok = 0;
            break;
        }
        list = q;
        list[nlist].file = strdup(file);
        list[nlist].tag = strdup(tag);
        list[nlist].line = lineno;
        list[nlist].at = at;
        list[nlist].matched = 0;
        ok = list[nlist].file != NULL && list[nlist].tag != NULL;
        nlist++;
    }
    free(line);
    fclose(in);
    return ok;
}

static listed *find_listed(const char *file, size_t line)
{
    for (size_t i = 0; i < nlist; i++)
        if (list[i].line == line && strcmp(list[i].file, file) == 0)
            return &list[i];
    return NULL;
}

/* ---- counts ---- */

/* Per cause tag: how many listed stanzas still differ. */
typedef struct tag_count {
    const char *tag;
    size_t n;
} tag_count;

typedef struct file_counts {
    size_t stanzas, run, skipped[EVP_SKIP_N];
    size_t passed[MAX_PASSES], ran[MAX_PASSES];
    size_t known, fresh, fixed, default_fails, not_judged, ut_only_fails, stale;
    tag_count tags[16];
    size_t ntags;
} file_counts;

static void count_tag(file_counts *c, const char *tag)
{
    for (size_t i = 0; i < c->ntags; i++)
        if (strcmp(c->tags[i].tag, tag) == 0) {
            c->tags[i].n++;
            return;
        }
    if (c->ntags < sizeof(c->tags) / sizeof(c->tags[0])) {
        c->tags[c->ntags].tag = tag;
        c->tags[c->ntags].n = 1;
        c->ntags++;
    }
}

static size_t total_passed, total_failed, total_skipped, total_known;

/* ---- the runner's state ---- */

static tu_env env;
static const char *pass_name[MAX_PASSES];
static char pass_propq[MAX_PASSES][96];
static int npasses;             /* 2: the provider under test, then default; 1: default only */

/* The outcome of one stanza on one provider, judged. */
typedef struct judged {
    evp_outcome o;
    int pass;                   /* 1: the stanza's outcome */
    char why[512];              /* what went wrong when not */
    char reason[160];           /* the reason string of the first error on the queue */
    char errors[1536];          /* the error queue's text */
} judged;

/* Every error on the queue, oldest first, as text (the queue is emptied). */
static void take_errors(char *buf, size_t len)
{
    const char *file, *func, *data;
    int line, flags;
    unsigned long e;
    size_t used = 0;

    buf[0] = '\0';
    while ((e = ERR_get_error_all(&file, &line, &func, &data, &flags)) != 0) {
        char one[320];

        ERR_error_string_n(e, one, sizeof(one));
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", used > 0 ? " | " : "",
                                     one, (flags & ERR_TXT_STRING) != 0 ? ": " : "",
                                     (flags & ERR_TXT_STRING) != 0 ? data : "");
    }
}

/*
 * Judge o against the stanza's Result and Reason, as evp_test's check_test_error does: the
 * same error code, and (when check_reason) the reason string of the first error on the queue.
 */
static void judge(judged *j, const char *expected, const char *reason, int check_reason)
{
    const evp_outcome *o = &j->o;
    unsigned long e = ERR_peek_error();
    const char *got_reason = e != 0 ? ERR_reason_error_string(e) : NULL;

    snprintf(j->reason, sizeof(j->reason), "%s", got_reason != NULL ? got_reason : "");
    j->pass = 0;
    if (o->malformed[0] != '\0')
        snprintf(j->why, sizeof(j->why), "malformed stanza: %s", o->malformed);
    else if (o->wrong_provider[0] != '\0')
        snprintf(j->why, sizeof(j->why), "%s", o->wrong_provider);
    else if (o->err != NULL && expected == NULL)
        snprintf(j->why, sizeof(j->why), "expected success, got %s%s%s", o->err,
                 o->output[0] != '\0' ? ": output " : "", o->output);
    else if (o->err == NULL && expected != NULL)
        snprintf(j->why, sizeof(j->why), "succeeded, expected %s", expected);
    else if (o->err != NULL && strcmp(o->err, expected) != 0)
        snprintf(j->why, sizeof(j->why), "expected %s, got %s%s%s", expected, o->err,
                 o->output[0] != '\0' ? ": output " : "", o->output);
    else if (o->err != NULL && reason != NULL && check_reason && e == 0)
        snprintf(j->why, sizeof(j->why), "%s as expected, but no error on the queue (expected "
                 "reason \"%s\")", o->err, reason);
    else if (o->err != NULL && reason != NULL && check_reason && got_reason != NULL
             && strcmp(got_reason, reason) != 0)
        snprintf(j->why, sizeof(j->why), "%s as expected, but reason \"%s\", expected \"%s\"",
                 o->err, got_reason, reason);
    else
        j->pass = 1;
}

static const char *value_of(const evp_stanza *s, size_t from, const char *key)
{
    for (size_t i = from; i < s->npairs; i++)
        if (strcmp(s->pairs[i].key, key) == 0)
            return s->pairs[i].value;
    return NULL;
}

/* 1 if one of the provider names in v (white-space separated) is the default provider. */
static int names_default(const char *v)
{
    char buf[256], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", v);
    for (char *tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save))
        if (strcmp(tok, "default") == 0)
            return 1;
    return 0;
}

/*
 * A key stanza: the key decoded by the default provider and added to evp_test's public or
 * private list. 0 on an error that makes the file unusable (printed).
 */
static int add_key(const evp_file *f, const evp_stanza *s, size_t op, evp_keys *keys)
{
    const evp_pair *p = &s->pairs[op];
    int public_list = strcmp(p->key, "PublicKey") == 0;
    EVP_PKEY *pkey = NULL;
    evp_key *v;

    for (size_t i = 0; i < keys->n; i++)
        if (keys->v[i].pass < 0 && keys->v[i].public_list == public_list
                && strcmp(keys->v[i].name, p->value) == 0) {
            printf("%s:%zu: duplicate key %s\n", f->name, p->line, p->value);
            return 0;
        }
    if (strcmp(p->key, "PrivateKey") == 0 || public_list) {
        BIO *bio = BIO_new_mem_buf(s->pem, -1);

        if (bio != NULL)
            pkey = public_list
                   ? PEM_read_bio_PUBKEY_ex(bio, NULL, NULL, NULL, env.libctx, TU_PROPQ_DEFAULT)
                   : PEM_read_bio_PrivateKey_ex(bio, NULL, NULL, NULL, env.libctx,
                                                TU_PROPQ_DEFAULT);
        BIO_free(bio);
        if (pkey == NULL) {
            /* evp_test's "unsupported algorithm": the key stays listed, as NULL */
            unsigned long e = ERR_peek_last_error();

            if (!(ERR_GET_LIB(e) == ERR_LIB_EVP
                  && (ERR_GET_REASON(e) == EVP_R_UNSUPPORTED_ALGORITHM
                      || ERR_GET_REASON(e) == EVP_R_DECODE_ERROR))
                    && ERR_GET_REASON(e) != ERR_R_UNSUPPORTED) {
                char errors[1024];

                take_errors(errors, sizeof(errors));
                printf("%s:%zu: cannot decode %s %s: %s\n", f->name, p->line, p->key, p->value,
                       errors);
                return 0;
            }
            ERR_clear_error();
        }
    }
    /* PrivateKeyRaw, PublicKeyRaw, ParamKey (no RSA file has them) stay NULL: unsupported */
    if (keys->n == keys->cap) {
        size_t ncap = keys->cap != 0 ? 2 * keys->cap : 16;

        v = realloc(keys->v, ncap * sizeof(*v));
        if (v == NULL)
            goto oom;
        keys->v = v;
        keys->cap = ncap;
    }
    v = &keys->v[keys->n];
    v->name = strdup(p->value);
    if (v->name == NULL)
        goto oom;
    v->public_list = public_list;
    v->pass = -1;
    v->pkey = pkey;
    keys->n++;
    return 1;
oom:
    EVP_PKEY_free(pkey);
    printf("%s: out of memory\n", f->name);
    return 0;
}

static const char *const skip_names[EVP_SKIP_N] = {
    "", "not in the default provider (Availablein)", "FIPS security check (Securitycheck)",
    "extended test", "unsupported", "key, digest or cipher not in this OpenSSL",
};

/*
 * Whether a stanza runs at all, before any provider: Availablein, Securitycheck,
 * Extended-Test, and what this runner implements. *op := index of its type's pair.
 */
static evp_skip pre_skip(const evp_stanza *s, size_t *op, char *why, size_t len)
{
    size_t i = 0;

    why[0] = '\0';
    /* the stanza's type follows its Availablein and FIPSversion lines (FIPSversion concerns
       the FIPS provider only) */
    while (i < s->npairs && (strcmp(s->pairs[i].key, "Availablein") == 0
                             || strcmp(s->pairs[i].key, "FIPSversion") == 0))
        i++;
    *op = i;
    /* every Availablein line must name the default provider (evp_test wants them first) */
    for (size_t k = 0; k < s->npairs; k++)
        if (strcmp(s->pairs[k].key, "Availablein") == 0 && !names_default(s->pairs[k].value)) {
            snprintf(why, len, "Availablein = %s", s->pairs[k].value);
            return EVP_SKIP_UNAVAILABLE;
        }
    if (i == s->npairs)
        return EVP_RUN;         /* only Availablein/FIPSversion lines: nothing to run */
    for (size_t k = i + 1; k < s->npairs; k++) {
        if (strcmp(s->pairs[k].key, "Securitycheck") == 0) {
            snprintf(why, len, "Securitycheck");
            return EVP_SKIP_SECURITYCHECK;
        }
        if (strcmp(s->pairs[k].key, "Extended-Test") == 0) {
            snprintf(why, len, "Extended-Test");
            return EVP_SKIP_EXTENDED;
        }
    }
    if (evp_stanza_unsupported(s, i, why, len) != NULL)
        return EVP_SKIP_UNSUPPORTED;
    return EVP_RUN;
}

static void print_line(text *t, const evp_file *f, const evp_stanza *s, size_t op)
{
    text_add(t, "  %s:%zu: %s = %s", f->name, s->line, s->pairs[op].key, s->pairs[op].value);
    if (s->title[0] != '\0')
        text_add(t, " (%s)", s->title);
}

/* One data file being run. */
typedef struct file_run {
    evp_file f;
    evp_keys keys;
    file_counts c;
    text details;               /* the stanzas to report, one or two lines each */
    text reasons;               /* ctrsa's passes with another reason than the stanza's */
    int strict;                 /* the running OpenSSL's own vectors: default must pass */
    int newer;                  /* a release folder of 3.4 or later: its evp_test semantics */
} file_run;

/* Judge one run stanza on both providers against each other and the list. */
static void tally(file_run *fr, const evp_stanza *s, size_t op, const char *reason,
                  judged *j)
{
    file_counts *c = &fr->c;
    const char *ut = pass_name[0];
    judged *d = &j[npasses - 1], *u = &j[0];    /* default's pass is the last one */
    listed *l = find_listed(fr->f.name, s->line);

    c->run++;
    for (int p = 0; p < npasses; p++) {
        if (j[p].o.skip != EVP_RUN) {
            j[p].pass = 0;
            snprintf(j[p].why, sizeof(j[p].why), "skipped here only: %.159s",
                     j[p].o.skip_why);
        }
        c->passed[p] += (size_t)j[p].pass;
        c->ran[p] += (size_t)(j[p].o.ran && j[p].o.wrong_provider[0] == '\0');
    }
    if (npasses > 1 && u->pass && reason != NULL && strcmp(u->reason, reason) != 0) {
        print_line(&fr->reasons, &fr->f, s, op);
        text_add(&fr->reasons, ": Reason \"%s\"; %s's first error: \"%s\"\n", reason, ut,
                 u->reason);
    }
    if (!d->pass) {
        c->default_fails++;
        print_line(&fr->details, &fr->f, s, op);
        text_add(&fr->details, ": default FAILS: %s\n      default's errors: %s\n", d->why,
                 d->errors[0] != '\0' ? d->errors : "(none)");
        if (fr->strict) {
            total_failed++;
        } else if (npasses > 1 && u->pass) {
            total_passed++;
        } else {
            c->not_judged++;
            total_skipped++;
        }
    } else if (npasses == 1) {
        total_passed++;
    } else if (u->pass && l != NULL) {
        c->fixed++;
        total_failed++;
        print_line(&fr->details, &fr->f, s, op);
        text_add(&fr->details, ": listed as %s, but %s passes now (fixed: remove it from "
                 "expected_differences.txt)\n", l->tag, ut);
    } else if (u->pass) {
        total_passed++;
    } else {
        print_line(&fr->details, &fr->f, s, op);
        text_add(&fr->details, " [%s]: %s\n      %s's errors: %s\n",
                 l != NULL ? l->tag : "NEW: not in expected_differences.txt", u->why, ut,
                 u->errors[0] != '\0' ? u->errors : "(none)");
        if (l != NULL) {
            c->known++;
            total_known++;
            count_tag(c, l->tag);
        } else {
            c->fresh++;
            total_failed++;
        }
    }
}

/* A stanza that is not a key: skipped, or run on every pass and judged. */
static void run_test_stanza(file_run *fr, const evp_stanza *s, size_t op, evp_skip sk,
                            const char *why)
{
    judged j[MAX_PASSES];
    const char *expected = value_of(s, op + 1, "Result");
    const char *reason = value_of(s, op + 1, "Reason");
    listed *l = find_listed(fr->f.name, s->line);

    fr->c.stanzas++;
    if (l != NULL)
        l->matched = 1;
    if (sk != EVP_RUN) {
        fr->c.skipped[sk]++;
        if (sk == EVP_SKIP_UNSUPPORTED) {
            print_line(&fr->details, &fr->f, s, op);
            text_add(&fr->details, ": skipped: unsupported: %s\n", why);
        }
        return;
    }
    for (int p = 0; p < npasses; p++) {
        evp_run r = { env.libctx, pass_name[p], pass_propq[p], p, &fr->keys, fr->newer };

        memset(&j[p], 0, sizeof(j[p]));
        ERR_clear_error();
        evp_run_stanza(&r, s, op, &j[p].o);
        /* the Reason line is evp_test's check, made on the default provider only */
        judge(&j[p], expected, reason, 1);
        take_errors(j[p].errors, sizeof(j[p].errors));
    }
    if (j[npasses - 1].o.skip != EVP_RUN)
        fr->c.skipped[j[npasses - 1].o.skip]++;     /* evp_test skips it too */
    else
        tally(fr, s, op, reason, j);
}

static void print_report(const file_run *fr, int ok)
{
    const file_counts *c = &fr->c;
    const char *ut = pass_name[0];
    size_t skipped = 0;

    for (int k = 1; k < EVP_SKIP_N; k++)
        skipped += c->skipped[k];
    total_skipped += skipped;
    printf("%s: %zu stanzas: %zu run, %zu skipped (", fr->f.name, c->stanzas, c->run, skipped);
    for (int k = 1; k < EVP_SKIP_N; k++)
        printf("%s%zu %s", k > 1 ? ", " : "", c->skipped[k], skip_names[k]);
    printf(")%s\n", ok ? "" : "; STOPPED at an unusable key");
    printf("  default: %zu of %zu passed%s\n", c->passed[npasses - 1], c->run,
           fr->strict ? " (this OpenSSL's own vectors: it must pass them all)"
                      : " (vectors of another OpenSSL version: its failures are not judged)");
    if (npasses > 1) {
        printf("  %s: %zu of %zu passed; %zu ran in %s", ut, c->passed[0], c->run, c->ran[0],
               ut);
        if (c->ran[0] < c->run)
            printf(", %zu stopped before (an operation's init or a key import failed)",
                   c->run - c->ran[0]);
        printf("\n  default passes, %s fails: %zu listed in expected_differences.txt", ut,
               c->known);
        for (size_t i = 0; i < c->ntags; i++)
            printf("%s%s %zu", i > 0 ? ", " : " (", c->tags[i].tag, c->tags[i].n);
        printf("%s, %zu new; listed but passing now: %zu; stale list lines: %zu\n",
               c->ntags > 0 ? ")" : "", c->fresh, c->fixed, c->stale);
    }
    if (c->not_judged > 0)
        printf("  not judged (default fails too on this OpenSSL): %zu\n", c->not_judged);
    if (fr->details.len > 0)
        printf("%s", fr->details.s);
    if (fr->reasons.len > 0)
        printf("  %s passes, with other error reasons than the stanza's Reason (recorded, "
               "not judged):\n%s", ut, fr->reasons.s);
}

/* The stanzas of one data file, reported; 0 if it could not be run through. */
static int run_file(const char *path)
{
    char name[600], dir[256], ours[32], errbuf[512], why[160];
    char *pathcopy = strdup(path), *pathcopy2 = strdup(path);
    file_run fr;
    int ok = 1;

    memset(&fr, 0, sizeof(fr));
    if (pathcopy == NULL || pathcopy2 == NULL) {
        free(pathcopy);
        free(pathcopy2);
        total_failed++;
        return 0;
    }
    /* reported as <release folder>/<file>; the folder says whose vectors they are */
    snprintf(dir, sizeof(dir), "%.255s", basename(dirname(pathcopy)));
    snprintf(name, sizeof(name), "%s/%.255s", dir, basename(pathcopy2));
    free(pathcopy);
    free(pathcopy2);
    snprintf(ours, sizeof(ours), "%u.%u", OPENSSL_version_major(), OPENSSL_version_minor());
    fr.strict = strcmp(dir, ours) == 0;
    {
        unsigned major = 0, minor = 0;

        fr.newer = sscanf(dir, "%u.%u", &major, &minor) == 2
                   && (major > 3 || (major == 3 && minor >= 4));
    }
    if (!evp_file_read(path, name, &fr.f, errbuf, sizeof(errbuf))) {
        printf("%s\n", errbuf);
        total_failed++;
        return 0;
    }
    for (size_t si = 0; si < fr.f.nstanzas && ok; si++) {
        const evp_stanza *s = &fr.f.stanzas[si];
        size_t op;
        evp_skip sk = pre_skip(s, &op, why, sizeof(why));
        const char *type = op < s->npairs ? s->pairs[op].key : NULL;

        if (type == NULL)
            continue;           /* only Availablein/FIPSversion lines */
        if (strcmp(type, "PrivateKey") == 0 || strcmp(type, "PublicKey") == 0
                || strcmp(type, "PrivateKeyRaw") == 0 || strcmp(type, "PublicKeyRaw") == 0
                || strcmp(type, "ParamKey") == 0) {
            /* a key for another provider is not listed at all, as in evp_test */
            if (sk != EVP_SKIP_UNAVAILABLE)
                ok = add_key(&fr.f, s, op, &fr.keys);
            continue;
        }
        run_test_stanza(&fr, s, op, sk, why);
    }
    /* list lines naming a line of this file where no stanza starts */
    for (size_t i = 0; ok && i < nlist; i++)
        if (strcmp(list[i].file, fr.f.name) == 0 && !list[i].matched) {
            fr.c.stale++;
            total_failed++;
            text_add(&fr.details, "  expected_differences.txt:%zu: %s:%zu is not the first "
                     "line of a stanza\n", list[i].at, list[i].file, list[i].line);
        }
    print_report(&fr, ok);
    if (!ok)
        total_failed++;
    free(fr.details.s);
    free(fr.reasons.s);
    for (size_t i = 0; i < fr.keys.n; i++) {
        free(fr.keys.v[i].name);
        EVP_PKEY_free(fr.keys.v[i].pkey);
    }
    free(fr.keys.v);
    evp_file_free(&fr.f);
    return ok;
}

/* The release folder of a data file ("3.0" of .../data/3.0/x.txt) as major << 8 | minor. */
static unsigned folder_version(const char *path)
{
    char *copy = strdup(path);
    unsigned major = 0, minor = 0, v = 0;

    if (copy != NULL && sscanf(basename(dirname(copy)), "%u.%u", &major, &minor) == 2)
        v = major << 8 | minor;
    free(copy);
    return v;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--provider NAME] [--expected LIST] DATAFILE...\n", argv0);
}

int main(int argc, char **argv)
{
    const char *expected = NULL;
    struct timespec t0, t1;
    int first = 1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first += 2) {
        if (first + 1 >= argc) {
            usage(argv[0]);
            return 2;
        }
        if (strcmp(argv[first], "--provider") == 0) {
            setenv("CTRSA_TEST_PROVIDER", argv[first + 1], 1);
        } else if (strcmp(argv[first], "--expected") == 0) {
            expected = argv[first + 1];
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    if (first == argc) {
        usage(argv[0]);
        return 2;
    }
    if (!tu_env_init(&env))
        return 1;
    if (env.under_test != NULL) {
        pass_name[npasses++] = tu_provider_name();
    } else if (expected != NULL) {
        printf("evp: the default provider alone: expected_differences.txt does not apply\n");
        expected = NULL;
    }
    pass_name[npasses++] = "default";
    for (int p = 0; p < npasses; p++)
        snprintf(pass_propq[p], sizeof(pass_propq[p]), "provider=%s", pass_name[p]);
    if (expected != NULL && !load_list(expected))
        return 1;
    printf("evp: %s; each stanza on %s%s\n", OpenSSL_version(OPENSSL_VERSION), pass_name[0],
           npasses > 1 ? " and default" : " alone");
    /* The data set of the running OpenSSL: the newest release folder not above its version
       (data/3.0 on 3.x, data/4.0 on 4.0 and later); the files of other folders are named
       and left out. */
    unsigned running = OPENSSL_version_major() << 8 | OPENSSL_version_minor(), chosen = 0;

    for (int i = first; i < argc; i++) {
        unsigned v = folder_version(argv[i]);

        if (v <= running && v > chosen)
            chosen = v;
    }
    if (chosen == 0) {
        printf("evp: no data file of OpenSSL %u.%u or older\n", running >> 8, running & 0xff);
        total_failed++;
    }
    for (int i = first; i < argc; i++) {
        if (folder_version(argv[i]) == chosen)
            run_file(argv[i]);
        else
            printf("evp: %s: not run (the running OpenSSL %u.%u takes the vectors of "
                   "data/%u.%u)\n", argv[i], running >> 8, running & 0xff, chosen >> 8,
                   chosen & 0xff);
    }
    tu_env_free(&env);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (npasses > 1)
        printf("evp: %zu known differences (expected_differences.txt: known defects, and "
               "deliberate differences), not counted below\n", total_known);
    printf("evp: run time %.2f s\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("evp: %zu passed, %zu failed, %zu skipped\n", total_passed, total_failed,
           total_skipped);
    for (size_t i = 0; i < nlist; i++) {
        free(list[i].file);
        free(list[i].tag);
    }
    free(list);
    return total_failed == 0 ? 0 : 1;
}
