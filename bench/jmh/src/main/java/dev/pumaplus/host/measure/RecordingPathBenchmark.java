/*
 * The hot-path cost of exact queue time: everything the host does per request to time it, measured in
 * isolation (the request path's queue, dispatch, link-finished and response-sent steps, minus their I/O).
 * In the measure room's package, beside the QueueMetrics it measures.
 */
package dev.pumaplus.host.measure;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One completed request's timing, as the host performs it: the nanoTime reads the host adds (T2b at submit,
 * T3 at dispatch, the link idle again, T6) and the records into the {@link QueueMetrics} recorders (body
 * wait and queue at submit/dispatch, service at response end, slot when the link is free, total at T6) plus
 * the status-class count. T1, T2, T4 and T5 come from elsewhere (the protocol, the worker), so they are
 * fixed offsets here. Target: tens of ns and 0 B/op ({@code -prof gc}, {@code gc.alloc.rate.norm}).
 *
 * <p>Run: {@code java -jar bench/jmh/target/benchmarks.jar -prof gc} (about a minute).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=allow"})
public class RecordingPathBenchmark {

    private final QueueMetrics metrics = new QueueMetrics();

    /** One request's timing, single writer. */
    @Benchmark
    public long completedRequest() {
        return record(metrics);
    }

    /** The same from two threads at once (two cores here): the recorders are shared, wait-free. */
    @Benchmark
    @Threads(2)
    public long completedRequestTwoThreads() {
        return record(metrics);
    }

    /** Its parts: one clock read. */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }

    /** Its parts: one record into one of the shared recorders. */
    @Benchmark
    public void oneRecord() {
        metrics.queue.record(123_456);
    }

    private static long record(QueueMetrics m) {
        long t2b = System.nanoTime();                 // submit
        long t2 = t2b - 1_000;                        // headers parsed (from the protocol)
        m.bodyWait.record(t2b - t2);
        long t3 = System.nanoTime();                  // dispatch
        m.queue.record(t3 - t2b);
        long t4 = t3 + 30_000;                        // the worker's points
        long t5 = t4 + 2_000_000;
        m.countStatus(200);                           // RESPONSE_HEAD
        m.service.record(t5 - t4 - 0);                // response END_STREAM
        long idle = System.nanoTime();                // link finished
        m.slot.record(idle - t3);
        long t6 = System.nanoTime();                  // last byte sent
        m.total.record(t6 - (t2 - 50_000));
        return t6;
    }
}
