/*
 * Flupke's hook for extended CONNECT (accept → parse): announces WebTransport in the connection's SETTINGS and
 * hands each CONNECT with :protocol webtransport to its connection's WebTransportConnection.
 */
package dev.pumaplus.protocol.h3;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntConsumer;
import tech.kwik.core.QuicStream;
import tech.kwik.flupke.HttpStream;
import tech.kwik.flupke.server.Http3ServerConnection;
import tech.kwik.flupke.server.Http3ServerExtension;
import tech.kwik.flupke.server.Http3ServerExtensionFactory;

/**
 * Flupke calls {@link #createExtension} on a connection's first extended CONNECT with this protocol, and
 * {@link Http3ServerExtension#handleExtendedConnect} on the CONNECT stream's thread after the request handler
 * (H3RequestHandler) returned without answering it, inside H3ConnectionFactory's lending of that stream
 * ({@link H3ConnectionFactory#requestStream}). Immutable; any thread.
 */
final class WebTransportExtension implements Http3ServerExtensionFactory {

    static final String PROTOCOL = "webtransport";

    private final Map<Long, Long> settings;
    private final Function<Http3ServerConnection, WebTransportConnection> sessions;

    /** @param sessions the WebTransport side of a Flupke connection (made when the connection was) */
    WebTransportExtension(Function<Http3ServerConnection, WebTransportConnection> sessions) {
        this.settings = AnnouncedSettings.of();
        this.sessions = sessions;
    }

    @Override
    public Map<Long, Long> getExtensionSettings() {
        return settings;
    }

    @Override
    public Http3ServerExtension createExtension(Http3ServerConnection connection) {
        WebTransportConnection wt = sessions.apply(connection);
        // The CONNECT stream itself, not Flupke's HttpStream: that one's input takes any frame other than DATA
        // (Chromium's reserved "grease" frames among them) for the end of the stream.
        return (HttpHeaders headers, String protocol, String authority, String pathAndQuery, IntConsumer status,
                HttpStream stream) -> wt.connect(pathAndQuery, fields(authority, headers), status,
                raw(H3ConnectionFactory.requestStream()));
    }

    /** A QUIC stream as Flupke's HttpStream, its bytes unframed. */
    static HttpStream raw(QuicStream quic) {
        return new HttpStream() {
            @Override
            public OutputStream getOutputStream() {
                return quic.getOutputStream();
            }

            @Override
            public InputStream getInputStream() {
                return quic.getInputStream();
            }

            @Override
            public long getStreamId() {
                return quic.getStreamId();
            }

            @Override
            public boolean isBidirectional() {
                return quic.isBidirectional();
            }

            @Override
            public void abortReading(long errorCode) {
                quic.abortReading(errorCode);
            }

            @Override
            public void resetStream(long errorCode) {
                quic.resetStream(errorCode);
            }
        };
    }

    /** The request's fields as H3RequestHandler maps them: {@code host} first from the authority, no pseudo-headers. */
    static List<Map.Entry<String, String>> fields(String authority, HttpHeaders headers) {
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        if (authority != null) {
            fields.add(Map.entry("host", authority));
        }
        for (Map.Entry<String, List<String>> header : headers.map().entrySet()) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (name.startsWith(":") || (authority != null && name.equals("host"))) {
                continue;
            }
            for (String value : header.getValue()) {
                fields.add(Map.entry(name, value));
            }
        }
        return List.copyOf(fields);
    }
}
