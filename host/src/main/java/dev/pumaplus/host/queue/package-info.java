/**
 * The queue room: the request path from admission to the worker and back. {@link
 * dev.pumaplus.host.queue.Admission} is the {@code RequestQueue} service protocol bundles submit to; the
 * {@link dev.pumaplus.host.queue.Dispatcher} holds runnable requests (FIFO) and idle worker links and pairs
 * them; a {@link dev.pumaplus.host.queue.WorkerLink} runs one exchange at a time on a worker thread's unix
 * socket and streams the response back to the protocol's sink (spooling, hijacks, WebSocket commands). It
 * also makes what a protocol holds per request through the SPI: the body buffer
 * ({@link dev.pumaplus.host.queue.SpoolingBodyBuffer}), the response's water marks
 * ({@link dev.pumaplus.host.queue.ResponseWaterMarks}) and a held WebSocket's handler.
 *
 * <p>Why the queue and the worker link share one room: a link is the queue's free slot and an exchange
 * moves between them both ways (dispatch down, "finished, give me the next" back up through
 * {@code LinkListener}), so splitting them would only hide that cycle behind interfaces.
 *
 * <p>May use: the measure room, the SPI and the wire codec. Must never touch: the link server, lifecycle,
 * config, control, framework or boot rooms (they sit above it and call down). Other rooms read the queue
 * through {@link dev.pumaplus.host.queue.QueueReadout} (control) or the SPI services it implements.
 */
package dev.pumaplus.host.queue;
