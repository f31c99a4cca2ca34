package dev.pumaplus.spi;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;

/**
 * Where the host delivers one request's response. Implemented by protocol bundles. The host calls these
 * methods from a worker link's event loop, never concurrently for one exchange and always in this order:
 * {@code head}, then {@code body} until end of stream; or {@code fail} at any point instead.
 * Implementations hop to their own channel's event loop as needed.
 */
public interface ResponseSink {

    /**
     * The response status and headers.
     *
     * @param headers     names and values as ISO-8859-1 chars, one per byte; a name may repeat
     * @param endOfStream true if no body follows
     */
    void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream);

    /** A piece of the response body; ownership of {@code chunk} transfers to the sink. */
    void body(ByteBuf chunk, boolean endOfStream);

    /**
     * The response cannot be produced or completed (the worker died, the app aborted, the host is shutting
     * down).
     *
     * @param status   what to answer when {@code headSent} is false (e.g. 502)
     * @param headSent true if {@link #head} was already called: the protocol must end the response
     *                 abnormally (close the HTTP/1.1 connection, reset the stream)
     */
    void fail(int status, String reason, boolean headSent);

    /** The host can take more request body after {@link Exchange#writeBody} returned false. */
    void resumeRequestBody();
}
