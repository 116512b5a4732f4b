/*
 * ctrsa-cnf-dump FILE: the configuration OpenSSL reads from FILE, every key of every
 * section, for ctrsa-config (a shell script) to read through OpenSSL's own parser instead
 * of one of its own. NCONF_load is what OpenSSL programs use: it follows `.include` (a file
 * or a folder's *.cnf and *.conf files; a relative name through OPENSSL_CONF_INCLUDE or
 * `.pragma includedir`, else from the current folder), applies the other pragmas, quoting,
 * escapes and `$var` expansion, reads CR LF line ends, and merges a section that appears
 * more than once (a later key replaces an earlier one of the same name).
 *
 * Output, one record a line, fields separated by a tab:
 *   S <section>                       every section, the unnamed top one being "default"
 *   K <section> <key> <value>         every key, in the order OpenSSL keeps them
 * In every field a backslash, tab, newline, carriage return or other control byte is
 * written as \\, \t, \n, \r or \xHH, so that a record is always one line.
 *
 * Exit status: 0 read; 1 usage; 2 OpenSSL could not read FILE, or left an error on its
 * queue while reading it (an included file that is missing, say), printed on standard
 * error. The configuration is only read: no module is loaded, no provider activated.
 */
#include <stdio.h>
#include <openssl/conf.h>
#include <openssl/err.h>

/* Write S with the escapes above. */
static void put_field(const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '\\')
            fputs("\\\\", stdout);
        else if (c == '\t')
            fputs("\\t", stdout);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c == '\r')
            fputs("\\r", stdout);
        else if (c < 0x20 || c == 0x7f)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
}

int main(int argc, char **argv)
{
    CONF *conf;
    STACK_OF(OPENSSL_CSTRING) *names;
    long eline = 0;
    int i, j, ok = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: ctrsa-cnf-dump FILE\n");
        return 1;
    }
    conf = NCONF_new(NULL);
    if (conf == NULL || NCONF_load(conf, argv[1], &eline) <= 0) {
        if (eline > 0)
            fprintf(stderr, "ctrsa-cnf-dump: OpenSSL cannot read %s (line %ld):\n",
                    argv[1], eline);
        else
            fprintf(stderr, "ctrsa-cnf-dump: OpenSSL cannot read %s:\n", argv[1]);
        goto end;
    }
    if (ERR_peek_error() != 0) {
        fprintf(stderr, "ctrsa-cnf-dump: OpenSSL read %s with errors:\n", argv[1]);
        goto end;
    }
    names = NCONF_get_section_names(conf);
    if (names == NULL)
        goto end;
    for (i = 0; i < sk_OPENSSL_CSTRING_num(names); i++) {
        const char *name = sk_OPENSSL_CSTRING_value(names, i);
        STACK_OF(CONF_VALUE) *values = NCONF_get_section(conf, name);

        fputs("S\t", stdout);
        put_field(name);
        putchar('\n');
        for (j = 0; j < sk_CONF_VALUE_num(values); j++) {
            const CONF_VALUE *v = sk_CONF_VALUE_value(values, j);

            fputs("K\t", stdout);
            put_field(name);
            putchar('\t');
            put_field(v->name);
            putchar('\t');
            put_field(v->value);
            putchar('\n');
        }
    }
    sk_OPENSSL_CSTRING_free(names);
    ok = fflush(stdout) == 0 && !ferror(stdout);
end:
    if (!ok)
        ERR_print_errors_fp(stderr);
    NCONF_free(conf);
    return ok ? 0 : 2;
}
