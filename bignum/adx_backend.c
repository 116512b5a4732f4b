/*
 * The "adx" backend's descriptor (backend.h). Compiled with the default flags: it runs before
 * the CPU is checked; the kernels live in adx_mont.c, built with -mbmi2 -madx.
 * Not built (NULL) on CPUs other than x86-64.
 *
 * TEMPORARY: returns NULL until adx_mont.c lands (the next commit).
 */
#include "backend.h"

const ctbn_backend *ctbn_backend_adx(void)
{
    return NULL;
}
