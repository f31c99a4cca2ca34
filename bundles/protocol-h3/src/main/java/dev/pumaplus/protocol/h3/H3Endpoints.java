/*
 * The HTTP/3 listeners (accept step): one Kwik QUIC server connector per TLS listener, on the same address
 * and UDP port, speaking "h3" through Flupke's connections (H3ConnectionFactory), whose request handler
 * (H3RequestHandler) turns each request stream into a queue entry.
 */
package dev.pumaplus.protocol.h3;

import dev.pumaplus.spi.Http3Endpoints;
import dev.pumaplus.spi.Listener;
import dev.pumaplus.spi.RequestQueue;
import dev.pumaplus.spi.TlsMaterial;
import dev.pumaplus.spi.WebSocketHub;
import io.netty.util.concurrent.EventExecutorGroup;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.security.interfaces.ECPrivateKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tech.kwik.core.server.ServerConnectionConfig;
import tech.kwik.core.server.ServerConnector;

/**
 * Limits per QUIC connection: 100 concurrent request streams, receive windows of 256 KiB per stream and
 * 1 MiB per connection, and QUIC's max idle timeout from
 * {@code persistent_timeout} (as HTTP/2's idle timeout; a QUIC connection with no packet for that long is
 * closed). Flupke calls the request
 * handler on a thread of its executor and expects it to block until the response is written, so the
 * executor makes one virtual thread per request: a waiting request costs no platform thread. A request
 * body that stalls for {@code first_data_timeout} is answered 408 by its handler, on a deadline kept by the
 * host's event loops (HTTP/3 has none of its own).
 *
 * <p>Threading: {@link #open} from protocol-h1's start (the framework's thread); {@link #close} and
 * {@link #stopAccepting} from the host's stop sequence.
 */
final class H3Endpoints implements Http3Endpoints, Listener {

    private static final System.Logger LOG = System.getLogger("dev.pumaplus.protocol.h3");

    /**
     * Flow-control credit a client may send ahead on one request stream, bytes. Left unset, Kwik grants the
     * application protocol's minimum, 5 KiB, which held an upload to a few KB per round trip (10 MiB took
     * 1,300-2,200 STREAM_DATA_BLOCKED stalls) and, at that rate, let Kwik's own client miss a window update
     * and sit blocked until the idle timeout closed the connection. The handler reads what arrives at once
     * (into memory, then a spool file), so this is what Kwik may hold for a stream between two reads.
     */
    private static final long STREAM_RECEIVE_WINDOW = 256 * 1024;
    /** Credit over all of one connection's streams, bytes: what Kwik holds for one connection at most. */
    private static final long CONNECTION_RECEIVE_WINDOW = 1024 * 1024;
    /** How long a graceful stop waits for the held WebTransport sessions' close capsules to be written, ms. */
    private static final long CLOSE_WRITE_MILLIS = 1000;

    private final RequestQueue queue;
    private final long contentLengthLimit;
    private final int idleTimeoutSecs;
    private final EventExecutorGroup timers;
    private final long bodyTimeoutNanos;
    private final ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
    private final List<ServerConnector> connectors = new ArrayList<>();
    private final WebSocketHub hub;
    private final WebTransportLimits webTransport;
    private final HeldSessions heldSessions = new HeldSessions();

    /**
     * @param contentLengthLimit largest request body in bytes; 0 or less: none
     * @param idleTimeoutSecs    QUIC's max idle timeout, at least 1
     * @param timers             the host's event loops, for the request bodies' progress deadlines
     * @param bodyTimeoutNanos   a request body that brings no new byte for this long is answered 408
     *                           ({@code first_data_timeout}); 0 or less: none
     * @param hub                the host's WebSocket hub, which also holds WebTransport sessions; null: no
     *                           WebTransport
     */
    H3Endpoints(RequestQueue queue, long contentLengthLimit, int idleTimeoutSecs, EventExecutorGroup timers,
            long bodyTimeoutNanos, WebSocketHub hub, WebTransportLimits webTransport) {
        this.hub = hub;
        this.webTransport = webTransport;
        this.queue = queue;
        this.contentLengthLimit = contentLengthLimit;
        this.idleTimeoutSecs = Math.max(1, idleTimeoutSecs);
        this.timers = timers;
        this.bodyTimeoutNanos = bodyTimeoutNanos;
    }

    @Override
    public synchronized String open(InetSocketAddress address, TlsMaterial tls) {
        try {
            DatagramSocket socket = new DatagramSocket(address);
            ServerConnectionConfig config = ServerConnectionConfig.builder()
                    .maxIdleTimeoutInSeconds(idleTimeoutSecs)
                    .maxOpenPeerInitiatedBidirectionalStreams(100)
                    .maxOpenPeerInitiatedUnidirectionalStreams(10)
                    .maxBidirectionalStreamBufferSize(STREAM_RECEIVE_WINDOW)
                    .maxConnectionBufferSize(CONNECTION_RECEIVE_WINDOW)
                    .build();
            ServerConnector.Builder builder = ServerConnector.builder()
                    .withSocket(socket)
                    .withConfiguration(config)
                    .withLogger(new KwikLog());
            if (tls.privateKey() instanceof ECPrivateKey ec) {
                builder.withKeyStore(tls.keyStore(), TlsMaterial.ALIAS, tls.keyStorePassword(), curve(ec));
            } else {
                builder.withKeyStore(tls.keyStore(), TlsMaterial.ALIAS, tls.keyStorePassword());
            }
            ServerConnector connector = builder.build();
            InetSocketAddress local = (InetSocketAddress) socket.getLocalSocketAddress();
            H3RequestHandler handler = new H3RequestHandler(queue, local, contentLengthLimit, timers, bodyTimeoutNanos);
            connector.registerApplicationProtocol("h3",
                    new H3ConnectionFactory(handler, requests, hub, webTransport, local, heldSessions));
            connector.start();
            connectors.add(connector);
            if (hub != null) {
                LOG.log(System.Logger.Level.INFO, CertificateHash.line(
                        "https://" + address.getHostString() + ":" + socket.getLocalPort(), tls.chain()[0]));
            }
            return "h3=\":" + socket.getLocalPort() + "\"; ma=86400";
        } catch (SocketException | java.security.cert.CertificateException | RuntimeException e) {
            throw new IllegalStateException("protocol-h3: cannot listen on udp " + address + ": " + e, e);
        }
    }

    /** The TLS 1.3 signature curve Kwik needs for an EC key, from the key's field size. */
    private static String curve(ECPrivateKey key) {
        int bits = key.getParams().getCurve().getField().getFieldSize();
        return switch (bits) {
            case 256 -> "secp256r1";
            case 384 -> "secp384r1";
            case 521 -> "secp521r1";
            default -> throw new IllegalArgumentException("EC key on an unsupported " + bits + "-bit curve");
        };
    }

    /**
     * Stops taking QUIC connections: HTTP/3 has no graceful drain here, the connectors close. Held WebTransport
     * sessions are first sent CLOSE_WEBTRANSPORT_SESSION with 1001 (as the host closes held WebSockets), so
     * their close events carry 1001 although their connections close a moment later.
     */
    @Override
    public void stopAccepting() {
        heldSessions.closeAll(CLOSE_WRITE_MILLIS);
        close();
    }

    synchronized void close() {
        for (ServerConnector connector : connectors) {
            connector.close();
        }
        connectors.clear();
    }
}
