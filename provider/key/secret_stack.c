/*
 * The secret stack (contracts in rsa_key.h: ctrsa_on_secret_stack, ctrsa_off_secret_stack):
 * secret work runs on a stack the module owns, so that its frames never land on the
 * caller's stack, whose size ctrsa cannot know (a thread's near its end, an OpenSSL ASYNC
 * job's 32 KiB on the heap, a coroutine's), and so that the wipe after each use touches
 * only memory the module mapped. A leaf: it uses nothing of the key object.
 *
 * Stacks: each thread has one, mapped at its first secret call (CTRSA_SECRET_STACK_BYTES
 * above a PROT_NONE guard, kept out of core dumps) and unmapped by the thread-specific-data
 * destructor when the thread exits (the calling thread's by the module's destructor). A
 * call that finds the thread's stack in use by a call that has not returned (an ASYNC job
 * paused in a key generation's progress callback, or a callback left by longjmp) runs on a
 * stack mapped for that call alone and unmapped after it: never on top of another call's
 * frames, never on the caller's stack.
 *
 * A call made while already on a secret stack (secret work inside public work, a signal
 * handler's) runs in place, and the outermost call's wipe reaches down as far as such a
 * nested call could have gone; public work (ctrsa_on_module_stack) is not wiped unless
 * secret work nested in it.
 *
 * The switch: ctrsa_call_on_stack (secret_stack_<arch>.S) on x86-64 and aarch64; elsewhere
 * the same contract through makecontext/swapcontext (a signal-mask system call each way:
 * about 3 us a round trip on x86-64, too slow for the hot paths there). ASan is told of
 * every switch (__sanitizer_*_switch_fiber), valgrind of the thread's stack.
 *
 * Secret: what the frames held; wiped from a frame on the secret stack after every outermost
 * use, whatever fn returned, and the vector registers cleared after. Public: sizes, depths,
 * whether a stack was in use.
 */
#include <alloca.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bignum.h"
#include "rsa_key.h"

#if defined(__x86_64__) || defined(__aarch64__)
#define SWITCH_ASM 1
/* secret_stack_<arch>.S: stores the stack pointer it leaves in *left, calls fn(arg) with
 * the stack pointer at top (16-byte aligned) and returns fn's value with the caller's stack
 * pointer back. */
int ctrsa_call_on_stack(void *arg, int (*fn)(void *), void *top, void **left);
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
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define SWITCH_VALGRIND 1
#endif
#endif

#define GUARD_BYTES (64 * 1024) /* more than the largest frame of the engine (16.2 KB) */

/* One call running on a secret stack. Lives in ctrsa_on_secret_stack's frame. */
typedef struct crossing {
    int (*fn)(void *);
    void *arg;
    int ret;
    uint8_t *lo, *hi;          /* the stack it runs on */
    uintptr_t low;             /* the wipe reaches down to here (nested calls lower it) */
    int wipe;                  /* secret work ran on it: wipe after (a nested call sets it) */
    int ran;                   /* fn ran (the switch worked) */
    void *caller_sp;           /* where it left the caller's stack: callbacks run below */
    struct crossing *outer;    /* the call that was current before this one */
    uint8_t *outer_lo, *outer_hi; /* and its stack */
    void *caller_fake;         /* ASan: the caller's stack, to switch back to */
    const void *caller_bottom;
    size_t caller_size;
} crossing;

typedef struct secret_stack {
    uint8_t *map;       /* the thread's mapping: guard, then the stack */
    uint8_t *base;      /* lowest address of the stack */
    int busy;           /* a call is running on it (or was left without returning) */
    crossing *current;  /* the innermost call running on a secret stack, NULL if none */
    uint8_t *cur_lo, *cur_hi; /* its stack (kept here: a call left by longjmp leaves
                               * current dangling, never dereferenced off its stack) */
    unsigned vg_id;     /* valgrind's stack id */
#if !SWITCH_ASM
    struct uc_call *uc_pending; /* the call the next switch runs */
#endif
} secret_stack;

static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static int stack_key_ok;

/* A mapping of guard and stack; NULL if none could be had. */
static uint8_t *map_stack(void)
{
    size_t len = GUARD_BYTES + CTRSA_SECRET_STACK_BYTES;
    uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    if (mprotect(map, GUARD_BYTES, PROT_NONE) != 0) {
        munmap(map, len);
        return NULL;
    }
#ifdef MADV_DONTDUMP
    (void)madvise(map + GUARD_BYTES, CTRSA_SECRET_STACK_BYTES, MADV_DONTDUMP);
#endif
    return map;
}

/* Unmapping discards the contents: nothing of them is readable afterwards. */
static void unmap_stack(uint8_t *map)
{
    munmap(map, GUARD_BYTES + CTRSA_SECRET_STACK_BYTES);
}

static void stack_free(void *arg)
{
    secret_stack *s = arg;
    if (s == NULL)
        return;
#ifdef SWITCH_VALGRIND
    VALGRIND_STACK_DEREGISTER(s->vg_id);
#endif
    unmap_stack(s->map);
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
        if (s != NULL && !s->busy) { /* not under a call that has not returned */
            pthread_setspecific(stack_key, NULL);
            stack_free(s);
        }
    }
}

/* The calling thread's stack, mapped at its first use; NULL with an error raised. The
 * descriptor is mapped too (not malloc'ed): leak checkers that do not scan the
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
    s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *map = map_stack();
    if (s == MAP_FAILED || map == NULL) {
        if (s != MAP_FAILED)
            munmap(s, sizeof(*s));
        if (map != NULL)
            unmap_stack(map);
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "a secret stack (%d KiB)",
                    CTRSA_SECRET_STACK_BYTES / 1024);
        return NULL;
    }
    s->map = map; /* the mapping is zero-filled: busy = 0, current = NULL */
    s->base = map + GUARD_BYTES;
#ifdef SWITCH_VALGRIND
    s->vg_id = VALGRIND_STACK_REGISTER(s->base, s->base + CTRSA_SECRET_STACK_BYTES - 1);
#endif
    if (pthread_setspecific(stack_key, s) != 0) { /* published only when filled in */
        stack_free(s);
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "a secret stack");
        return NULL;
    }
    return s;
}

static uintptr_t stack_pointer(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

/* 1 if sp is on the stack of the current call (then s->current is live). */
static int runs_on(const secret_stack *s, uintptr_t sp)
{
    return s != NULL && s->current != NULL && sp >= (uintptr_t)s->cur_lo
           && sp < (uintptr_t)s->cur_hi;
}

static void make_current(secret_stack *s, crossing *c, uint8_t *lo, uint8_t *hi)
{
    s->current = c;
    s->cur_lo = lo;
    s->cur_hi = hi;
}

/* Zeroes the secret stack from just below this frame down to c->low, from a frame of its
 * own (alloca), so that every byte written is live stack to the tools that watch. */
static __attribute__((noinline)) void wipe(const crossing *c)
{
    uintptr_t here = stack_pointer();
    uintptr_t low = c->low > (uintptr_t)c->lo + 4096 ? c->low : (uintptr_t)c->lo + 4096;
    if (here <= low + 256)
        return;
    size_t n = here - low - 256;
    uint8_t *area = alloca(n);
    memset(area, 0, n);
    __asm__ volatile("" : : "r"(area) : "memory");
}

/* Runs on the secret stack. */
static int entry(void *p)
{
    crossing *c = p;
#ifdef SWITCH_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->caller_bottom, &c->caller_size);
#endif
    c->ran = 1;
    c->ret = c->fn(c->arg);
    if (c->wipe)
        wipe(c);
#ifdef SWITCH_ASAN
    /* NULL: this visit to the secret stack ends here */
    __sanitizer_start_switch_fiber(NULL, c->caller_bottom, c->caller_size);
#endif
    return c->ret;
}

#if SWITCH_ASM
#define call_on_stack ctrsa_call_on_stack
#else
/* ctrsa_call_on_stack's contract through makecontext/swapcontext; returns -1 if the
 * switch failed (fn not run). */
typedef struct uc_call {
    int (*fn)(void *);
    void *arg;
    int ret;
    ucontext_t back, there;
} uc_call;

static void uc_entry(void)
{
    secret_stack *s = pthread_getspecific(stack_key);
    uc_call *u = s->uc_pending;
    u->ret = u->fn(u->arg);
}

static int call_on_stack(void *arg, int (*fn)(void *), void *top, void **left)
{
    secret_stack *s = pthread_getspecific(stack_key);
    uc_call u = { .fn = fn, .arg = arg, .ret = -1 };
    /* below u and swapcontext's own frame: free for a callback's trip back */
    *left = (void *)(((uintptr_t)&u - 4096) & ~(uintptr_t)15);
    if (getcontext(&u.there) != 0)
        return -1;
    /* makecontext starts at ss_sp + ss_size; the size itself is not enforced */
    u.there.uc_stack.ss_sp = (uint8_t *)top - CTRSA_SECRET_STACK_BYTES;
    u.there.uc_stack.ss_size = CTRSA_SECRET_STACK_BYTES;
    u.there.uc_link = &u.back;
    makecontext(&u.there, uc_entry, 0);
    s->uc_pending = &u;
    if (swapcontext(&u.back, &u.there) != 0)
        return -1;
    return u.ret;
}
#endif

/* 1 if fn ran on c's stack, 0 if the switch failed. */
static int switch_and_call(crossing *c)
{
    call_on_stack(c, entry, c->hi, &c->caller_sp);
    return c->ran;
}

/* ctrsa_on_secret_stack (secret 1) and ctrsa_on_module_stack (secret 0). */
static int cross(CTRSA_PROVCTX *prov, int (*fn)(void *), void *arg, int secret)
{
    secret_stack *s = this_thread_stack(prov);
    if (s == NULL)
        return 0;
    uintptr_t sp = stack_pointer();
    if (runs_on(s, sp)) {
        /* nested: in place; the current call's wipe then reaches below this one's frames */
        crossing *cur = s->current;
        if (secret) {
            uintptr_t reach = sp - (uintptr_t)cur->lo > CTRSA_SCRUB_STACK_BYTES
                                  ? sp - CTRSA_SCRUB_STACK_BYTES : (uintptr_t)cur->lo;
            if (reach < cur->low)
                cur->low = reach;
            cur->wipe = 1;
        }
        return fn(arg);
    }
    crossing c = { .fn = fn, .arg = arg, .wipe = secret, .outer = s->current,
                   .outer_lo = s->cur_lo, .outer_hi = s->cur_hi };
    uint8_t *own = NULL; /* a mapping for this call alone, when the thread's is in use */
    if (!s->busy) {
        s->busy = 1;
        c.lo = s->base;
    } else if ((own = map_stack()) != NULL) {
        c.lo = own + GUARD_BYTES;
    } else {
        CTRSA_RAISE(prov, CTRSA_R_MALLOC_FAILURE, "a secret stack (%d KiB)",
                    CTRSA_SECRET_STACK_BYTES / 1024);
        return 0;
    }
    c.hi = c.lo + CTRSA_SECRET_STACK_BYTES;
    c.low = (uintptr_t)c.hi - CTRSA_SCRUB_STACK_BYTES;
    make_current(s, &c, c.lo, c.hi);
#ifdef SWITCH_ASAN
    __sanitizer_start_switch_fiber(&c.caller_fake, c.lo, CTRSA_SECRET_STACK_BYTES);
#endif
    int switched = switch_and_call(&c);
#ifdef SWITCH_ASAN
    __sanitizer_finish_switch_fiber(c.caller_fake, NULL, NULL);
#endif
    make_current(s, c.outer, c.outer_lo, c.outer_hi);
    if (own != NULL)
        unmap_stack(own);
    else
        s->busy = 0;
    ctbn_clear_vector_regs();
    if (!switched) {
        CTRSA_RAISE(prov, CTRSA_R_INTERNAL, "could not switch to the secret stack");
        return 0;
    }
    return c.ret;
}

/* Contract in rsa_key.h. */
int ctrsa_on_secret_stack(CTRSA_PROVCTX *prov, int (*fn)(void *), void *arg)
{
    return cross(prov, fn, arg, 1);
}

/* Contract in rsa_key.h. */
int ctrsa_on_module_stack(CTRSA_PROVCTX *prov, int (*fn)(void *), void *arg)
{
    return cross(prov, fn, arg, 0);
}

/* A callback's trip back to the caller's stack. */
typedef struct callback_trip {
    crossing *c;
    int (*fn)(void *);
    void *arg;
    int ret;
    void *secret_fake; /* ASan: the secret stack, to switch back to */
} callback_trip;

/* Runs on the caller's stack, below where the secret call left it. */
static int off_entry(void *p)
{
    callback_trip *t = p;
#ifdef SWITCH_ASAN
    __sanitizer_finish_switch_fiber(t->c->caller_fake, NULL, NULL);
#endif
    t->ret = t->fn(t->arg);
#ifdef SWITCH_ASAN
    __sanitizer_start_switch_fiber(&t->c->caller_fake, t->c->lo,
                                   (size_t)(t->c->hi - t->c->lo));
#endif
    return t->ret;
}

/* Contract in rsa_key.h. */
int ctrsa_off_secret_stack(int (*fn)(void *), void *arg)
{
    secret_stack *s = stack_key_ok ? pthread_getspecific(stack_key) : NULL;
    if (!runs_on(s, stack_pointer()))
        return fn(arg);
    crossing *c = s->current;
    callback_trip t = { .c = c, .fn = fn, .arg = arg, .ret = 0 };
    void *left;
    /* during the callback, the call that was current before this one is */
    make_current(s, c->outer, c->outer_lo, c->outer_hi);
    ctbn_clear_vector_regs();
#ifdef SWITCH_ASAN
    __sanitizer_start_switch_fiber(&t.secret_fake, c->caller_bottom, c->caller_size);
#endif
    call_on_stack(&t, off_entry, c->caller_sp, &left);
#ifdef SWITCH_ASAN
    __sanitizer_finish_switch_fiber(t.secret_fake, NULL, NULL);
#endif
    make_current(s, c, c->lo, c->hi);
    return t.ret; /* 0 (stop) if the switch failed */
}
