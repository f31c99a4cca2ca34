// One request in flight inside the generator: its record, its deadline and what to undo if the deadline
// passes first. Handed to a Transport on the event loop; finished exactly once.
package dev.pumaplus.bench.loadgen;

import io.netty.util.concurrent.ScheduledFuture;

/**
 * Confined to the generator's single event-loop thread. {@link #succeed} and {@link #fail} are idempotent:
 * the first ending wins (a response that arrives after the timeout fired is ignored), then the completion
 * callback runs once.
 */
public final class Exchange {
  final RequestRecord record;
  final String path;
  private final long originNs;
  private final Runnable onDone;
  private ScheduledFuture<?> timeout;
  private Runnable onTimeout;
  private boolean done;

  Exchange(RequestRecord record, String path, long originNs, Runnable onDone) {
    this.record = record;
    this.path = path;
    this.originNs = originNs;
    this.onDone = onDone;
  }

  boolean isDone() {
    return done;
  }

  /** The run's clock: ns since the run's origin. */
  long now() {
    return System.nanoTime() - originNs;
  }

  void timeoutFuture(ScheduledFuture<?> future) {
    this.timeout = future;
  }

  /** What the transport must undo when the timeout wins (close the connection, leave the wait queue). */
  void onTimeout(Runnable action) {
    this.onTimeout = action;
  }

  /** Marks the request written to the network now. */
  void sent() {
    if (record.sentNs < 0) record.sentNs = now();
  }

  /** A complete response arrived. */
  void succeed(int status, long bytes) {
    if (done) return;
    record.status = status;
    record.bytes = bytes;
    finish(status >= 400 ? Outcome.HTTP_ERROR : Outcome.OK);
  }

  /** The request ended without a response. */
  void fail(Outcome outcome) {
    if (done) return;
    finish(outcome);
  }

  /** Called by the timeout task: ends the request as TIMEOUT and lets the transport clean up. */
  void expire() {
    if (done) return;
    finish(Outcome.TIMEOUT);
    if (onTimeout != null) onTimeout.run();
  }

  private void finish(Outcome outcome) {
    done = true;
    record.doneNs = now();
    record.outcome = outcome;
    if (timeout != null) timeout.cancel(false);
    onDone.run();
  }
}
