/*
 * The benchmark suite: one program, five sections, each printing its Markdown table on
 * stdout (and CSV rows if asked). bench_suite.c parses the command line, prints the header
 * (CPU, OpenSSL, ctrsa's build info and backend) and runs the sections in order.
 */
#ifndef CTRSA_BENCH_SUITE_H
#define CTRSA_BENCH_SUITE_H

#include "bench_evp.h"

typedef struct bs_opts {
    int quick;              /* --quick: fewer rounds and shorter batches, under a minute */
    const char *ref_name;   /* --against: the reference provider ("default") */
    const char *module_dir; /* where ctrsa.so is (the build folder) */
    const char *self;       /* this program's path, for the blinding-cache child */
    const char *bindir;     /* the folder holding this program and bench_engine */
} bs_opts;

/* The run: options, the library context, and one key per size made on first use. */
typedef struct bs_suite {
    bs_opts opts;
    be_env env;
    be_key keys[4]; /* 1024, 2048, 3072, 4096 */
} bs_suite;

/* The key of `bits` (1024, 2048, 3072 or 4096) in both sides, generated on first use. */
const be_key *bs_key(bs_suite *suite, size_t bits);

/* Heading and reference-name helpers shared by the sections. */
const char *bs_ref(const bs_suite *suite);

/* 1. The eight operations at 2048, 3072, 4096 bits. */
void bs_section_ops(bs_suite *suite);
/* 2. Key generation, 100 signs, 100 verifies at 1024 to 4096 bits. */
void bs_section_classic(bs_suite *suite);
/* 3a. Decryption with 1, 2, 4, 8 threads on one shared key. */
void bs_section_threads(bs_suite *suite);
/* 3b. Single-threaded decryption with the blinding cache on and (in a child) off. */
void bs_section_blinding(bs_suite *suite);
/* The child's side of 3b: `bench_suite --blinding-child MODULE_DIR`; returns exit status. */
int bs_blinding_child(const char *module_dir);
/* 5. Resident memory per key, imported and after one signature, in child processes. */
void bs_section_memory(bs_suite *suite);
/* 4. The engine alone: runs bench_engine from bindir and passes its table on. */
void bs_section_engine(bs_suite *suite);

#endif
