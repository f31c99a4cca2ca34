/*
 * A TLS listener's certificate chain and private key (accept step): protocol-h1 loads it from the PEM files
 * an ssl:// bind names, builds its TLS context from it and hands the same material to HTTP/3
 * ({@link Http3Endpoints#open}), so TCP and QUIC on one port present one certificate.
 */
package dev.pumaplus.spi;

import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * The material, loaded once; treat every component as read-only.
 *
 * @param chain            the certificate chain, leaf first
 * @param privateKey       the leaf's key, RSA or EC
 * @param keyStore         an in-memory PKCS#12 store holding the key and chain under {@link #ALIAS}: the form
 *                         QUIC libraries and KeyManagerFactory take
 * @param keyStorePassword the password of the store's key entry
 */
public record TlsMaterial(X509Certificate[] chain, PrivateKey privateKey, KeyStore keyStore,
                          char[] keyStorePassword) {

    /** The alias of the key entry in {@link #keyStore()}. */
    public static final String ALIAS = "puma-plus";
}
