/*
 * The secret stack (contract in rsa_key.h, ctrsa_on_secret_stack): secret work runs on a
 * stack the module owns, one per thread, so that its frames never land on the caller's
 * stack, whose size ctrsa cannot know (a thread's near its end, an OpenSSL ASYNC job's
 * 32 KiB on the heap, a coroutine's), and so that the wipe after each use touches only
 * memory the module mapped. A leaf: it uses nothing of the key object.
 *
 * Layout: one mapping per thread, a PROT_NONE guard page below CTRSA_SECRET_STACK_BYTES of
 * stack, made at the thread's first secret operation and unmapped at thread exit (the
 * thread-specific-data destructor, as the scratch area's: scratch.c), or for the calling
 * thread at module teardown.
 *
 * The switch: ctrsa_call_on_stack (secret_stack_<arch>.S) where the architecture has one,
 * makecontext/swapcontext elsewhere (a signal-mask system call each way: about 3 us a round
 * trip on x86-64, too much for a public-key encryption). Under ASan the switch is announced
 * (__sanitizer_start_switch_fiber), under valgrind the stack is registered.
 *
 * Secret: what the frames held; the top CTRSA_SCRUB_STACK_BYTES are zeroed after every
 * outermost use, whatever the function returned. Public: sizes, whether a call is nested.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "rsa_key.h"

#if defined(__x86_64__) || defined(__aarch64__)
#define SWITCH_ASM 1
/* secret_stack_<arch>.S: calls fn(arg) with the stack pointer at top (16-byte aligned) and
 * returns its value with the caller's stack pointer back. */
int ctrsa_call_on_stack(void *arg, int (*fn)(void *), void *top);
#else
#define SWITCH_ASM 0
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SWITCH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWITCH_ASAN 1
#endif
#endif
#ifdef SWITCH_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define SWITCH_VALGRIND 1
#endif
#endif

typedef struct secret_stack {
    uint8_t *map;      /* the mapping: guard page, then the stack */
    size_t map_len;
    uint8_t *base;     /* lowest address of the stack */
    int depth;         /* secret calls running on this thread (nested ones run in place) */
    struct crossing *pending; /* the call the next switch runs */
    unsigned vg_id;    /* valgrind's stack id */
#if !SWITCH_ASM
    ucontext_t caller, callee;
#endif
} secret_stack;

/* One call crossing to the secret stack. */
typedef struct crossing {
    int (*fn)(void *);
    void *arg;
    int ret;
    const void *caller_bottom; /* ASan: the caller's stack, to switch back to */
    size_t caller_size;
} crossing;

static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static int stack_key_ok;

static void stack_free(void *arg)
{
    secret_stack *s = arg;
    if (s == NULL)
        return;
    /* Unmapping discards the contents: nothing of them is readable afterwards. */
#ifdef SWITCH_VALGRIND
    VALGRIND_STACK_DEREGISTER(s->vg_id);
#endif
    munmap(s->map, s->map_len);
    munmap(s, sizeof(*s));
}

static void stack_key_create(void)
{
    stack_key_ok = pthread_key_create(&stack_key, stack_free) == 0;
}

__attribute__((destructor)) static void stack_key_delete(void)
{
    if (stack_key_ok) {
        secret_stack *s = pthread_getspecific(stack_key);
        /* Not while this thread runs on it (a destructor called from secret work). */
        if (s != NULL && s->depth == 0) {
            stack_free(s);
            pthread_setspecific(stack_key, NULL);
        }
    }
}

/* The calling thread's stack, mapped at its first use; NULL with an error raised. The
 * descriptor itself is mapped too (not malloc'ed), so that leak checkers that do not scan
 * thread-specific data of a dlopen'ed module see nothing lost. */
static secret_stack *this_thread_stack(CTRSA_PROVCTX *prov)
{
    pthread_once(&stack_once, stack_key_create);
    if (!stack_key_ok) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "no thread-specific storage for the secret stack");
        return NULL;
    }
    secret_stack *s = pthread_getspecific(stack_key);
    if (s != NULL)
        return s;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = page + CTRSA_SECRET_STACK_BYTES;
    s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED || map == MAP_FAILED || mprotect(map, page, PROT_NONE) != 0
        || pthread_setspecific(stack_key, s) != 0) {
        if (s != MAP_FAILED)
            munmap(s, sizeof(*s));
        if (map != MAP_FAILED)
            munmap(map, len);
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "a secret stack (%zu bytes)", len);
        return NULL;
    }
    memset(s, 0, sizeof(*s));
    s->map = map;
    s->map_len = len;
    s->base = map + page;
#ifdef SWITCH_VALGRIND
    s->vg_id = VALGRIND_STACK_REGISTER(s->base, s->base + CTRSA_SECRET_STACK_BYTES);
#endif
    return s;
}

/* Runs on the secret stack. */
static int entry(void *p)
{
    crossing *c = p;
#ifdef SWITCH_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->caller_bottom, &c->caller_size);
#endif
    c->ret = c->fn(c->arg);
#ifdef SWITCH_ASAN
    /* NULL: this visit to the secret stack ends here */
    __sanitizer_start_switch_fiber(NULL, c->caller_bottom, c->caller_size);
#endif
    return c->ret;
}

#if !SWITCH_ASM
static void uc_entry(void)
{
    secret_stack *s = pthread_getspecific(stack_key);
    entry(s->pending);
}

static int switch_and_call(secret_stack *s, crossing *c)
{
    if (getcontext(&s->callee) != 0)
        return 0;
    s->callee.uc_stack.ss_sp = s->base;
    s->callee.uc_stack.ss_size = CTRSA_SECRET_STACK_BYTES;
    s->callee.uc_link = &s->caller;
    makecontext(&s->callee, uc_entry, 0);
    s->pending = c;
    if (swapcontext(&s->caller, &s->callee) != 0)
        return 0;
    return 1;
}
#else
static int switch_and_call(secret_stack *s, crossing *c)
{
    ctrsa_call_on_stack(c, entry, s->base + CTRSA_SECRET_STACK_BYTES);
    return 1;
}
#endif

/* Zeroes the part of the secret stack that the secret frames reach. */
static void wipe(secret_stack *s)
{
    uint8_t *low = s->base + CTRSA_SECRET_STACK_BYTES - CTRSA_SCRUB_STACK_BYTES;
#ifdef SWITCH_VALGRIND
    /* below the stack pointer, so memcheck holds it unaddressable until this store */
    VALGRIND_MAKE_MEM_UNDEFINED(low, CTRSA_SCRUB_STACK_BYTES);
#endif
    memset(low, 0, CTRSA_SCRUB_STACK_BYTES);
    __asm__ volatile("" : : "r"(low) : "memory");
}

/* Contract in rsa_key.h. */
int ctrsa_on_secret_stack(CTRSA_PROVCTX *prov, int (*fn)(void *), void *arg)
{
    secret_stack *s = this_thread_stack(prov);
    if (s == NULL)
        return 0;
    if (s->depth > 0)
        return fn(arg); /* already on it; the outermost call wipes */
    crossing c = { .fn = fn, .arg = arg };
    s->depth = 1;
#ifdef SWITCH_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, s->base, CTRSA_SECRET_STACK_BYTES);
#endif
    int switched = switch_and_call(s, &c);
#ifdef SWITCH_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    s->depth = 0;
    wipe(s);
    if (!switched) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "could not switch to the secret stack");
        return 0;
    }
    return c.ret;
}
