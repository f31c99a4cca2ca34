package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;

/**
 * Where the host delivers one request's response. Implemented by protocol bundles. The host calls these
 * methods from a worker link's event loop, never concurrently for one exchange and always in this order:
 * {@code head}, then {@code body} until end of stream; or {@code fail} at any point instead.
 * Implementations hop to their own channel's event loop as needed, and must not block the calling thread.
 *
 * <p>Flow control runs both ways, each a pause answered by a resume: {@link Exchange#writeBody} returning
 * false pauses the client's request body until {@link #resumeRequestBody()}; {@link #body} returning false
 * pauses the worker's response until {@link Exchange#resumeResponse()}.
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
     * to stop reading this response from the worker (the worker then blocks in its socket write) until the
     * sink calls {@link Exchange#resumeResponse()}; the sink must make that call once it can take more,
     * unless the exchange is cancelled first. The pause is not immediate: chunks the host has already read
     * from the worker's socket may still arrive after false (the rest of the host's current socket read, by
     * default at most 64 KiB of frames); the sink takes them too, answering false again as it sees fit. The
     * return value of the call that carries end of stream is ignored.
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
     * The host can take more request body after {@link Exchange#writeBody} returned false. Called on a host
     * thread.
     */
    void resumeRequestBody();
}
