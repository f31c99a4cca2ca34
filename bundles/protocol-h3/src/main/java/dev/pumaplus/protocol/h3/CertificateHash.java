/*
 * What a browser needs to trust an HTTP/3 listener's certificate for WebTransport without a CA (accept step,
 * printed at start): its SHA-256, for the W3C WebTransport API's serverCertificateHashes, and whether the
 * certificate qualifies for that option at all.
 */
package dev.pumaplus.protocol.h3;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.util.Base64;

/**
 * The WebTransport API takes a hash only for a certificate whose key is ECDSA on P-256 (secp256r1) and whose
 * validity is at most 14 days. Stateless.
 */
final class CertificateHash {

    static final Duration MAX_VALIDITY = Duration.ofDays(14);

    private CertificateHash() {
    }

    /** SHA-256 of the certificate's DER encoding, base64. */
    static String sha256Base64(X509Certificate certificate) {
        try {
            return Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot hash the certificate", e);
        }
    }

    /** Null when serverCertificateHashes may name it; otherwise why not. */
    static String unfitForHashes(X509Certificate certificate) {
        if (!(certificate.getPublicKey() instanceof ECPublicKey ec)
                || ec.getParams().getCurve().getField().getFieldSize() != 256) {
            return "its key is not ECDSA P-256";
        }
        Duration validity = Duration.between(certificate.getNotBefore().toInstant(),
                certificate.getNotAfter().toInstant());
        if (validity.compareTo(MAX_VALIDITY) > 0) {
            return "it is valid " + validity.toDays() + " days, more than 14";
        }
        return null;
    }

    /** The start-up line for a listener at {@code url}. */
    static String line(String url, X509Certificate certificate) {
        String unfit = unfitForHashes(certificate);
        return "puma-plus: WebTransport on " + url + ": certificate sha256 " + sha256Base64(certificate)
                + (unfit == null ? " (serverCertificateHashes may name it)"
                        : " (serverCertificateHashes cannot name it: " + unfit + ")");
    }
}
