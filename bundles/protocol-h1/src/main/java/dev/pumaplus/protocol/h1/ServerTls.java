/*
 * The TLS context of an ssl:// listener (accept step): the bind's certificate and key, TLS 1.2 and 1.3
 * only, HTTP/2's cipher suites (RFC 9113 appendix A excludes the rest), and ALPN offering h2 (when
 * protocol-h2 is loaded) before http/1.1.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.TlsMaterial;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import javax.net.ssl.SSLException;

/** Builds immutable, thread-safe contexts with the JDK's TLS provider (no native library needed). */
final class ServerTls {

    private ServerTls() {
    }

    /** @param h2 whether ALPN offers h2 */
    static SslContext context(TlsMaterial material, boolean h2) {
        String[] protocols = h2
                ? new String[] {ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1}
                : new String[] {ApplicationProtocolNames.HTTP_1_1};
        try {
            return SslContextBuilder.forServer(material.privateKey(), material.chain())
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(
                            ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            protocols))
                    .build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot build the TLS context: " + e.getMessage(), e);
        }
    }
}
