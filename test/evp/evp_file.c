/* See evp_file.h. */
#include "evp_file.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* s without its leading and trailing white space (in place). */
static char *strip(char *s)
{
    char *end;

    while (*s != '\0' && isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static int is_blank(const char *s)
{
    while (*s != '\0' && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* Grow *p (of *cap elements of size elem) to hold at least n + 1. */
static int grow(void *p, size_t *cap, size_t n, size_t elem)
{
    void **pp = p;
    size_t ncap;
    void *q;

    if (n < *cap)
        return 1;
    ncap = *cap != 0 ? 2 * *cap : 16;
    q = realloc(*pp, ncap * elem);
    if (q == NULL)
        return 0;
    *pp = q;
    *cap = ncap;
    return 1;
}

/* The PEM block that follows a key line: lines up to and including "-----END...". */
static char *read_pem(FILE *in, size_t *lineno)
{
    char *line = NULL, *pem = NULL;
    size_t cap = 0, len = 0;
    ssize_t n;

    while ((n = getline(&line, &cap, in)) > 0) {
        char *q = realloc(pem, len + (size_t)n + 2);

        (*lineno)++;
        if (q == NULL)
            break;
        pem = q;
        memcpy(pem + len, line, (size_t)n);
        len += (size_t)n;
        if (pem[len - 1] != '\n')
            pem[len++] = '\n';
        pem[len] = '\0';
        if (strncmp(line, "-----END", 8) == 0) {
            free(line);
            return pem;
        }
    }
    free(line);
    free(pem);
    return NULL;
}

void evp_file_free(evp_file *f)
{
    for (size_t i = 0; i < f->nstanzas; i++) {
        evp_stanza *s = &f->stanzas[i];

        for (size_t j = 0; j < s->npairs; j++) {
            free(s->pairs[j].key);
            free(s->pairs[j].value);
        }
        free(s->pairs);
        free(s->pem);
    }
    for (size_t i = 0; i < f->ntitles; i++)
        free(f->titles[i]);
    free(f->stanzas);
    free(f->titles);
    free(f->name);
    memset(f, 0, sizeof(*f));
}

int evp_file_read(const char *path, const char *name, evp_file *f, char *err, size_t errlen)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lineno = 0, scap = 0, tcap = 0, pcap = 0;
    const char *title = "";
    evp_stanza *cur = NULL;     /* the stanza being read, NULL between stanzas */
    ssize_t n;
    int ok = 0;

    memset(f, 0, sizeof(*f));
    if (in == NULL) {
        set_err(err, errlen, "%s: cannot open", path);
        return 0;
    }
    f->name = strdup(name);
    if (f->name == NULL)
        goto oom;
    while ((n = getline(&line, &cap, in)) > 0) {
        char *eq, *key, *value;
        evp_pair *p;

        lineno++;
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (is_blank(line)) {
            cur = NULL;
            continue;
        }
        if (line[0] == '#')
            continue;
        eq = strchr(line, '=');
        if (eq == NULL) {
            set_err(err, errlen, "%s:%zu: no '=' in \"%s\"", name, lineno, line);
            goto done;
        }
        *eq = '\0';
        key = strip(line);
        value = strip(eq + 1);
        if (key[0] == '\0') {
            set_err(err, errlen, "%s:%zu: empty keyword", name, lineno);
            goto done;
        }
        if (strcmp(key, "Title") == 0) {
            if (!grow(&f->titles, &tcap, f->ntitles, sizeof(*f->titles))
                    || (f->titles[f->ntitles] = strdup(value)) == NULL)
                goto oom;
            title = f->titles[f->ntitles++];
            continue;
        }
        if (cur == NULL) {
            if (!grow(&f->stanzas, &scap, f->nstanzas, sizeof(*f->stanzas)))
                goto oom;
            cur = &f->stanzas[f->nstanzas++];
            memset(cur, 0, sizeof(*cur));
            cur->line = lineno;
            cur->title = title;
            pcap = 0;
        }
        if (!grow(&cur->pairs, &pcap, cur->npairs, sizeof(*cur->pairs)))
            goto oom;
        p = &cur->pairs[cur->npairs];
        p->line = lineno;
        p->key = strdup(key);
        p->value = strdup(value);
        if (p->key == NULL || p->value == NULL) {
            free(p->key);
            free(p->value);
            goto oom;
        }
        cur->npairs++;
        if (strcmp(key, "PrivateKey") == 0 || strcmp(key, "PublicKey") == 0) {
            size_t at = lineno;

            free(cur->pem);
            cur->pem = read_pem(in, &lineno);
            if (cur->pem == NULL) {
                set_err(err, errlen, "%s:%zu: %s %s: no \"-----END\" line", name, at, key,
                        value);
                goto done;
            }
        }
    }
    ok = 1;
    goto done;
oom:
    set_err(err, errlen, "%s: out of memory", name);
done:
    free(line);
    fclose(in);
    if (!ok)
        evp_file_free(f);
    return ok;
}
