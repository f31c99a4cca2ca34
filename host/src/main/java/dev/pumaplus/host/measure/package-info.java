/**
 * The measurement room: the request-timing histograms (queue, service, total, body wait, slot, GVL wait), the
 * queue metrics that hold them per second and cumulatively, the process gauges (RSS, CPU, fds, GC) and the
 * monotonic clock every timestamp comes from. It sits beside the request path: the queue records T2b/T3/T6
 * into it, the control room reads windows out of it.
 *
 * <p>May use: the JDK and HdrHistogram only. Must never touch: any other host room, the SPI or the wire
 * codec — it knows numbers, not requests, so every room above can record into it without a cycle.
 */
package dev.pumaplus.host.measure;
