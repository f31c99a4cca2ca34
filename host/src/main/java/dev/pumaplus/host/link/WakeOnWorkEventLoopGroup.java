/*
 * The host's event loops (HostTransport's group): Netty's, except that a loop with no timer due sleeps until
 * I/O or a task wakes it. Beneath every step of a request's path (accept → ... → respond), and the reason
 * an idle host costs nothing between requests.
 */
package dev.pumaplus.host.link;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import java.util.concurrent.Executor;

/**
 * A {@link MultiThreadIoEventLoopGroup} whose loops tell their I/O handler "no deadline" when no scheduled
 * task is pending. Netty's loops instead wake once a second with nothing to do (its purge interval for
 * cancelled timers, which the next scheduled task's run purges anyway): measured on an idle host, each such
 * wake-up ran ~125 µs of interpreted code on the I/O thread (code that runs once a second is never
 * compiled), and on a host serving 10 requests a second it was charged to every one of them
 * (docs/BENCHMARKS.md, "Light load").
 *
 * <p>io_uring, epoll and NIO all read "no deadline" as "wait until woken": io_uring and epoll from a
 * deadline of -1, NIO from a delay of {@link Long#MAX_VALUE}. A task or timer submitted from another thread
 * wakes the loop as before, and one scheduled on the loop is seen when the loop computes its next wait.
 */
final class WakeOnWorkEventLoopGroup extends MultiThreadIoEventLoopGroup {

    WakeOnWorkEventLoopGroup(int threads, IoHandlerFactory handlers) {
        super(threads, handlers);
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory handlers, Object... args) {
        return new Loop(this, executor, handlers);
    }

    /** One loop: only its wait computation differs from Netty's. */
    private static final class Loop extends SingleThreadIoEventLoop {

        Loop(WakeOnWorkEventLoopGroup group, Executor executor, IoHandlerFactory handlers) {
            super(group, executor, handlers);
        }

        /** The next timer's deadline, or -1 (none: wait for I/O or a task). */
        @Override
        protected long deadlineNanos() {
            return nextScheduledTaskDeadlineNanos();
        }

        /** Nanoseconds until the next timer, or {@link Long#MAX_VALUE} (none). */
        @Override
        protected long delayNanos(long currentTimeNanos) {
            long delay = nextScheduledTaskNano();
            return delay == -1 ? Long.MAX_VALUE : delay;
        }
    }
}
