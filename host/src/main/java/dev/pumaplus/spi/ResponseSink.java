package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.FileRegion;
import java.util.List;
import java.util.Map;

/**
 * Where the host delivers one request's response. Implemented by protocol bundles. The host calls these
 * methods from a worker link's event loop, never concurrently for one exchange and always in this order:
 * {@code head}, then {@code body} until end of stream; or {@code fail} at any point instead.
 * Implementations hop to their own channel's event loop as needed, and must not block the calling thread.
 * A response the host writes itself ({@link RequestQueue}, "Admission") arrives on the thread that called
 * {@code submit}, before {@code submit} returns, or on a host thread at shutdown.
 *
 * <p>Flow control: {@link #body} returning false pauses delivery to this sink until
 * {@link Exchange#resumeResponse()}. It never pauses the worker: the host goes on taking the response off
 * the worker at the worker's speed and holds what the sink has not taken (in memory up to a bound, then in
 * an unnamed spool file), so the worker's slot is free once the worker has written its response, however
 * slowly the client reads. A body that arrives while the sink keeps up is delivered at once, chunk by
 * chunk, so a streamed body (server-sent events) reaches the client as the app produces it.
 */
public interface ResponseSink {

    /**
     * The response status and headers.
     *
     * @param headers     names and values as ISO-8859-1 chars, one per byte; a name may repeat
     * @param endOfStream true if no body follows
     */
    void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream);

    /**
     * A piece of the response body; ownership of {@code chunk} transfers to the sink, which must take it
     * whatever it returns (it is never offered again).
     *
     * <p>Backpressure: the return value says whether the sink can take more at once, typically whether the
     * bytes it accepted and has not yet written to its client stay below its own limit. False asks the host
     * to hold the rest of this response ({@link #body} and {@link #file} calls stop) until the sink calls
     * {@link Exchange#resumeResponse()}; the sink must make that call once it can take more, unless the
     * exchange is cancelled first. The return value of the call that carries end of stream is ignored.
     *
     * @param chunk       response body bytes (possibly empty), at most 1 MiB ({@code MAX_PAYLOAD})
     * @param endOfStream true on the last piece
     * @return true if the sink can take more at once; false to pause until
     *         {@link Exchange#resumeResponse()}
     */
    boolean body(ByteBuf chunk, boolean endOfStream);

    /**
     * The response cannot be produced or completed (the worker died, the app aborted, the host is shutting
     * down).
     *
     * @param status   what to answer when {@code headSent} is false (e.g. 502)
     * @param headSent true if {@link #head} was already called: the protocol must end the response
     *                 abnormally (close the HTTP/1.1 connection, reset the stream)
     */
    void fail(int status, String reason, boolean headSent);

    /**
     * Whether this sink takes file regions through {@link #file}, sending them to its client without copying
     * them through memory (sendfile). The default is false: the host then reads a file body itself and
     * delivers it through {@link #body} in pieces of at most 1 MiB, honouring its backpressure.
     */
    default boolean acceptsFiles() {
        return false;
    }

    /**
     * A piece of the response body that is a region of a file (a Rack body answering {@code to_path}); only
     * called when {@link #acceptsFiles()} is true, in place of {@link #body}, with the same ordering, ownership
     * (release {@code region} when done) and backpressure contract, {@code region.count()} counting as the
     * piece's size.
     */
    default boolean file(FileRegion region, boolean endOfStream) {
        region.release();
        throw new UnsupportedOperationException("this sink does not accept files");
    }

    /**
     * Headers the app sent through {@code rack.early_hints} while its request runs: an informational
     * {@code 103 Early Hints} response for the client, before {@link #head}. Called from a worker link's
     * event loop, possibly several times, only before {@code head}. The default drops them (a protocol that
     * cannot send 1xx responses loses nothing but the hint). Must not block.
     *
     * @param headers names and values as ISO-8859-1 chars, one per byte; a name may repeat
     */
    default void earlyHints(List<Map.Entry<String, String>> headers) {
    }

    /**
     * The app took this request's client connection (Rack hijack, docs/RACK.md): from now on the client's
     * bytes go to {@code app} and {@code app}'s bytes to the client, unchanged, until either side closes;
     * no {@link #head}, {@link #body} or {@link #fail} follows. For a partial hijack the protocol first writes
     * the response head {@code status} and {@code headers} without body framing; for a full hijack
     * ({@code status} 0, no headers) it writes nothing, the app speaks the protocol itself.
     *
     * <p>{@code app} is the worker's hijack connection (a unix socket, its pipeline empty, auto-read off).
     * The worker hands the app its IO only once {@code welcome} has run, so the app writes nothing before
     * that: the protocol installs its handlers on {@code app}, writes the partial head, runs {@code welcome}
     * (from any thread; bytes the protocol writes to {@code app} afterwards from the same thread follow it),
     * then turns auto-read on. It closes {@code app} when the client goes away.
     * Called from a host thread; the protocol hops to its own event loop and must not block.
     *
     * @return true if the protocol took {@code app}; false (the default, for protocols whose connections are
     *         not a byte stream of one request, such as h2 and h3) makes the host close {@code app}
     */
    default boolean hijack(int status, List<Map.Entry<String, String>> headers, Channel app, Runnable welcome) {
        return false;
    }
}
