/*
 * PumaPlus::Worker::NativeGvlClock: how long each Ruby thread of a worker process has waited for its
 * process's GVL, in ns. The worker's link reads its own thread's total at T4 and T5, and the difference is
 * the request's GVL wait, sent to the host in RESPONSE_HEAD (docs/PROTOCOL.md, "Timing fields").
 *
 * It hooks Ruby's GVL instrumentation (rb_internal_thread_add_event_hook, Ruby 3.2+): a thread that wants the
 * GVL raises READY, and RESUMED when it has it; the time between the two is time the thread was runnable
 * and waited for another thread to give the lock up. Nothing else is measured (time blocked on IO without
 * the GVL is not a wait for it). Each thread's total only grows; a thread's data is freed when it exits.
 *
 * Threading: the hook runs without the GVL for READY and EXITED (on Ruby 3.3 possibly on another native
 * thread than the Ruby thread's, hence the per-thread slot keyed by the event's thread) and with it for
 * RESUMED. A thread reads its own total while it holds the GVL, so no RESUMED of its own can be under way.
 */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    uint64_t ready_at; /* CLOCK_MONOTONIC ns of the pending READY, 0 when none */
    uint64_t waited;   /* ns waited for the GVL, in all */
} gvl_wait_t;

static rb_internal_thread_event_hook_t *hook;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef HAVE_RB_INTERNAL_THREAD_SPECIFIC_GET
/* Ruby 3.3+: a slot of each thread's own, found from the event's thread. */
static rb_internal_thread_specific_key_t key;

static gvl_wait_t *slot_of(VALUE thread, int create)
{
    gvl_wait_t *w = rb_internal_thread_specific_get(thread, key);
    if (!w && create) {
        /* calloc, not ruby_xmalloc: READY runs without the GVL */
        w = calloc(1, sizeof(*w));
        if (w) {
            rb_internal_thread_specific_set(thread, key, w);
        }
    }
    return w;
}

static void on_event(rb_event_flag_t event, const rb_internal_thread_event_data_t *data, void *user_data)
{
    VALUE thread = data->thread;
    gvl_wait_t *w;

    switch (event) {
    case RUBY_INTERNAL_THREAD_EVENT_READY:
        if ((w = slot_of(thread, 1))) {
            w->ready_at = now_ns();
        }
        break;
    case RUBY_INTERNAL_THREAD_EVENT_RESUMED:
        if ((w = slot_of(thread, 0)) && w->ready_at) {
            w->waited += now_ns() - w->ready_at;
            w->ready_at = 0;
        }
        break;
    case RUBY_INTERNAL_THREAD_EVENT_EXITED:
        if ((w = slot_of(thread, 0))) {
            rb_internal_thread_specific_set(thread, key, NULL);
            free(w);
        }
        break;
    }
}

static uint64_t current_waited(void)
{
    gvl_wait_t *w = slot_of(rb_thread_current(), 0);
    return w ? w->waited : 0;
}
#else
/* Ruby 3.2: the hook runs on the native thread of the Ruby thread it is about, one each. */
static __thread gvl_wait_t own;

static void on_event(rb_event_flag_t event, const rb_internal_thread_event_data_t *data, void *user_data)
{
    if (event == RUBY_INTERNAL_THREAD_EVENT_READY) {
        own.ready_at = now_ns();
    } else if (event == RUBY_INTERNAL_THREAD_EVENT_RESUMED && own.ready_at) {
        own.waited += now_ns() - own.ready_at;
        own.ready_at = 0;
    }
}

static uint64_t current_waited(void)
{
    return own.waited;
}
#endif

/* NativeGvlClock.start: installs the hook (once per process; a forked child inherits it). Returns true. */
static VALUE start(VALUE self)
{
    if (!hook) {
        hook = rb_internal_thread_add_event_hook(on_event,
                RUBY_INTERNAL_THREAD_EVENT_READY | RUBY_INTERNAL_THREAD_EVENT_RESUMED
                | RUBY_INTERNAL_THREAD_EVENT_EXITED, NULL);
    }
    return Qtrue;
}

/* NativeGvlClock.started?: whether #start installed the hook. */
static VALUE started_p(VALUE self)
{
    return hook ? Qtrue : Qfalse;
}

/*
 * NativeGvlClock.wait_ns: the ns the calling thread has waited for the GVL since the hook was installed (0
 * before, or for a thread that never waited). An Integer that only grows; subtract two readings.
 */
static VALUE wait_ns(VALUE self)
{
    return ULL2NUM(current_waited());
}

void Init_gvl_clock(void)
{
    VALUE puma_plus = rb_define_module("PumaPlus");
    VALUE worker = rb_define_class_under(puma_plus, "Worker", rb_cObject);
    VALUE clock = rb_define_module_under(worker, "NativeGvlClock");

#ifdef HAVE_RB_INTERNAL_THREAD_SPECIFIC_GET
    key = rb_internal_thread_specific_key_create();
#endif
    /* start installs a process-wide hook: the main Ractor's business */
    rb_define_module_function(clock, "start", start, 0);
    rb_ext_ractor_safe(true);
    rb_define_module_function(clock, "started?", started_p, 0);
    rb_define_module_function(clock, "wait_ns", wait_ns, 0);
}
