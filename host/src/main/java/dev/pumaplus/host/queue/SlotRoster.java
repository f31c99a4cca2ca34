/*
 * The queue's record of every worker link (a slot) and worker process (dispatch step): which slots are idle,
 * which idle slot a request takes, which processes are live (sticky requests), and the per-process counts
 * /stats shows. Owned by the Dispatcher, which calls it under its lock.
 */
package dev.pumaplus.host.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Choice of link ({@link #take}): a link of the worker process with the fewest busy links (ties: the process whose link
 * has been idle longest), and within that process the link that became idle last. Threads of one Ruby
 * process share a GVL, so spreading concurrent requests across processes first gives each request the
 * most CPU; within a process, the thread that has just answered is the one to give the next request: it
 * is still running or has only just blocked, its caches are warm, and the process's other threads stay
 * asleep instead of each waking in turn to contend for the GVL (with a new connection per request, the
 * worker's CPU per request fell from 51–56 to 44–46 µs, `-w 1 -t 5:5`). So requests that come one at a
 * time all go to one process: its other links stay idle longest and keep it first. Its caches stay warm, and
 * it is the worker fork_worker's automatic refork promotes (docs/CONFIG.md, "fork_worker and the mold").
 *
 * <p>Threading: not thread-safe. Its one owner, the {@link Dispatcher}, calls every method under its lock;
 * only {@link #idleNow} may be read without it (admission's moment's view).
 */
final class SlotRoster {

    private final ArrayDeque<Slot> idle = new ArrayDeque<>();
    private final Map<Long, WorkerCounts> processes = new HashMap<>();
    private final List<Slot> slots = new ArrayList<>();
    /** The idle deque's size, set after each change for admission's reads without the lock. */
    private final AtomicInteger idleCount = new AtomicInteger();

    /** A link said HELLO: its slot, counted live in its process (new on the process's first link). */
    Slot join(WorkerLink link) {
        WorkerCounts process = processes.computeIfAbsent(link.hello.pid(),
                pid -> new WorkerCounts(pid, link.hello.workerIndex(), link.hello.generation(),
                        System.currentTimeMillis()));
        Slot slot = new Slot(link, process);
        process.live++;
        slots.add(slot);
        return slot;
    }

    /**
     * A slot's link closed: it is no longer live, and leaves the roster and its process's live count. Returns
     * whether it was its process's last link (the process is no longer live then: its sticky requests may run
     * anywhere).
     */
    boolean leave(Slot slot) {
        slot.live = false;
        slots.remove(slot);
        unpark(slot);
        WorkerCounts process = slot.process;
        process.live--;
        if (process.live == 0) {
            processes.remove(process.pid);
            return true;
        }
        return false;
    }

    /** {@code slot} runs {@code t} now (counted busy in its process). */
    void run(Slot slot, Ticket t) {
        slot.running = t;
        slot.process.busy++;
    }

    /** {@code slot}'s request finished: returned, and counted completed in its process. */
    Ticket finished(Slot slot) {
        Ticket done = slot.running;
        slot.running = null;
        slot.process.busy--;
        slot.process.completed++;
        return done;
    }

    /** {@code slot}'s link closed: the request it was running (null: none), no longer counted busy. */
    Ticket dropRunning(Slot slot) {
        Ticket running = slot.running;
        if (running != null) {
            slot.running = null;
            slot.process.busy--;
        }
        return running;
    }

    /** Nothing more is dispatched to {@code slot} (its worker sent GOAWAY, or the host drains). */
    void drain(Slot slot) {
        slot.draining = true;
        unpark(slot);
    }

    /** {@code slot} has nothing to run: it waits at the idle deque's tail (the most recently idle). */
    void park(Slot slot) {
        slot.idle = true;
        idle.add(slot);
        idleCount.setOpaque(idle.size());
    }

    /** Idle slots now, read without the lock: a moment's view for admission. */
    int idleNow() {
        return idleCount.getOpaque();
    }

    boolean anyIdle() {
        return !idle.isEmpty();
    }

    /** A sticky request runs on its process's links only, while that process has one. */
    boolean mayRun(Slot slot, Ticket t) {
        long pid = affinity(t);
        return pid == 0 || pid == slot.process.pid;
    }

    /** The pid whose links alone may run {@code t}: its sticky pid while that process is live, else 0 (any). */
    long affinity(Ticket t) {
        long pid = t.exchange.stickyPid;
        return pid != 0 && processes.containsKey(pid) ? pid : 0;
    }

    /**
     * The idle slots in the order a released request should try them: those of other processes than
     * {@code dying} first (its other links may be dead too, not yet seen closed), in idle order. A copy.
     */
    List<Slot> idleCandidates(WorkerCounts dying) {
        List<Slot> candidates = new ArrayList<>(idle.size());
        for (Slot slot : idle) {
            if (slot.process != dying) {
                candidates.add(slot);
            }
        }
        for (Slot slot : idle) {
            if (slot.process == dying) {
                candidates.add(slot);
            }
        }
        return candidates;
    }

    /** Every live slot, in joining order (the list itself: iterate under the lock, do not keep). */
    List<Slot> all() {
        return slots;
    }

    /** Live, not draining links whose HELLO named shepherd generation {@code generation}. */
    int liveLinks(long generation) {
        int n = 0;
        for (Slot slot : slots) {
            if (slot.link.hello.generation() == generation && !slot.draining) {
                n++;
            }
        }
        return n;
    }

    /** Per live worker process, by worker index then pid. */
    List<ProcessStatus> statuses() {
        List<ProcessStatus> status = new ArrayList<>(processes.size());
        for (WorkerCounts p : processes.values()) {
            status.add(new ProcessStatus(p.pid, p.workerIndex, p.generation, p.startedAtMillis, p.live,
                    p.live - p.busy, p.busy, p.completed));
        }
        status.sort((a, b) -> a.workerIndex() != b.workerIndex()
                ? Long.compare(a.workerIndex(), b.workerIndex()) : Long.compare(a.pid(), b.pid()));
        return status;
    }

    /**
     * The idle link to take for a request that may run on {@code pid}'s links only (0: on any): a link of
     * the process with the fewest busy links (ties: the one idle longest), and of that process's idle links
     * the one idle the shortest time.
     */
    Slot take(long pid) {
        WorkerCounts process = null;
        for (Slot slot : idle) {
            if (pid != 0 && slot.process.pid != pid) {
                continue;
            }
            if (process == null || slot.process.busy < process.busy) {
                process = slot.process;
                if (process.busy == 0) {
                    break;
                }
            }
        }
        if (process == null) {
            return null;
        }
        Slot best = null;
        for (Iterator<Slot> it = idle.descendingIterator(); best == null; ) {
            Slot slot = it.next();
            if (slot.process == process) {
                best = slot;
            }
        }
        if (best == idle.peekLast()) {
            idle.pollLast();
        } else {
            idle.remove(best);
        }
        best.idle = false;
        idleCount.setOpaque(idle.size());
        return best;
    }

    /** Takes {@code slot} out of the idle deque if it is there (it runs a request, drains or closed). */
    void unpark(Slot slot) {
        if (slot.idle) {
            idle.remove(slot);
            slot.idle = false;
            idleCount.setOpaque(idle.size());
        }
    }

    /**
     * The queue's record of one worker link, from its HELLO until it closes. Written by the roster alone
     * (script/field-writes holds that); the dispatcher reads it under its lock.
     */
    static final class Slot {
        final WorkerLink link;
        final WorkerCounts process;
        /** In the idle deque. */
        private boolean idle;
        boolean live = true;
        /** Nothing more is dispatched to it (the worker sent GOAWAY, or the host is shutting down). */
        boolean draining;
        /** The request it runs, or null. */
        Ticket running;

        Slot(WorkerLink link, WorkerCounts process) {
            this.link = link;
            this.process = process;
        }
    }

    /** The queue's count of one worker process's links (grouped by the pid in their HELLO). */
    static final class WorkerCounts {
        final long pid;
        final long workerIndex;
        /** The shepherd generation its first link's HELLO named. */
        final long generation;
        /** Wall-clock ms when its first link said HELLO. */
        final long startedAtMillis;
        int live;
        int busy;
        long completed;

        WorkerCounts(long pid, long workerIndex, long generation, long startedAtMillis) {
            this.pid = pid;
            this.workerIndex = workerIndex;
            this.generation = generation;
            this.startedAtMillis = startedAtMillis;
        }
    }
}
