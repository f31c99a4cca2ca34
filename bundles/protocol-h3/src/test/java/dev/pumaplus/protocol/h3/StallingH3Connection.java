/*
 * The client side of the HTTP/3 body-deadline test (H3Probe's stall mode, test/integration/h3_body_deadline_test.rb):
 * a Flupke client connection that can also open a raw request stream, send HEADERS and part of a body, and
 * read the response while the body is still unfinished, which Flupke's own send() cannot (it reads no
 * response before the request body has ended). Not part of the bundle.
 */
package dev.pumaplus.protocol.h3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;
import tech.kwik.core.QuicStream;
import tech.kwik.flupke.Http3ConnectionSettings;
import tech.kwik.flupke.HttpError;
import tech.kwik.flupke.impl.DataFrame;
import tech.kwik.flupke.impl.HeadersFrame;
import tech.kwik.flupke.impl.Http3ClientConnectionImpl;
import tech.kwik.flupke.impl.Http3Frame;

/**
 * One QUIC connection, unchecked server certificate: ordinary requests go through {@link #send} (Flupke's),
 * a stalling one through {@link #openPost} and {@link #readFrame}, with the connection's own QPACK coders.
 */
final class StallingH3Connection extends Http3ClientConnectionImpl {

    StallingH3Connection(String host, int port, ExecutorService executor) throws IOException {
        super(host, port, Duration.ofSeconds(20), UNCHECKED, null, executor, null);
    }

    /**
     * Opens a request stream and sends a POST's HEADERS and one DATA frame of {@code body}, flushed, and
     * leaves the stream open: the body never ends unless the caller ends it.
     */
    QuicStream openPost(String authority, String path, byte[] body) throws IOException {
        QuicStream stream = quicConnection.createStream(true);
        OutputStream out = stream.getOutputStream();
        out.write(new HeadersFrame(null, Map.of(HeadersFrame.PSEUDO_HEADER_METHOD, "POST",
                HeadersFrame.PSEUDO_HEADER_SCHEME, "https", HeadersFrame.PSEUDO_HEADER_AUTHORITY, authority,
                HeadersFrame.PSEUDO_HEADER_PATH, path)).toBytes(qpackEncoder));
        out.write(new DataFrame(body).toBytes());
        out.flush();
        return stream;
    }

    /** The next frame the server sent on {@code stream}, or null at its end. */
    Http3Frame readFrame(QuicStream stream) throws IOException {
        InputStream in = stream.getInputStream();
        try {
            return readFrame(in);
        } catch (HttpError e) {
            throw new IOException("bad frame from the server: " + e.getMessage(), e);
        }
    }

    /** Flupke's client settings with the server certificate unchecked (the test servers' are self-signed). */
    private static final Http3ConnectionSettings UNCHECKED = new Http3ConnectionSettings() {
        @Override
        public boolean disableCertificateCheck() {
            return true;
        }

        @Override
        public X509TrustManager trustManager() {
            return null;
        }

        @Override
        public X509ExtendedKeyManager keyManager() {
            return null;
        }

        @Override
        public int maxAdditionalPeerInitiatedUnidirectionalStreams() {
            return 0;
        }

        @Override
        public int maxAdditionalPeerInitiatedBidirectionalStreams() {
            return 0;
        }
    };
}
