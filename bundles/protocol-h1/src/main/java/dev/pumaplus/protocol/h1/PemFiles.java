/*
 * Loads a TLS listener's certificate chain and private key from the PEM files an ssl:// bind names (accept
 * step) into the SPI's TlsMaterial: this bundle builds its TLS context from it and hands the same material
 * to HTTP/3 (Http3Endpoints.open), so TCP and QUIC on one port present one certificate.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.TlsMaterial;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure functions; thread-safe. Keys: PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 RSA
 * ({@code BEGIN RSA PRIVATE KEY}) and SEC1 EC ({@code BEGIN EC PRIVATE KEY}), unencrypted; RSA and EC alike.
 * The certificate file holds the leaf first, then any intermediates.
 */
final class PemFiles {

    private static final String STORE_PASSWORD = "puma-plus";
    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)-----END \\1-----");

    private PemFiles() {
    }

    /**
     * Reads {@code certPem} and {@code keyPem}; the material's key store is an in-memory PKCS#12 store with
     * the key and chain under {@link TlsMaterial#ALIAS} (the form QUIC libraries and KeyManagerFactory take).
     *
     * @throws IllegalArgumentException naming the file and the problem (unreadable, no certificate, an
     *                                  encrypted or unknown key, a key that does not match the certificate)
     */
    static TlsMaterial load(Path certPem, Path keyPem) {
        X509Certificate[] chain = readChain(certPem);
        PrivateKey key = readKey(keyPem);
        String certAlgorithm = chain[0].getPublicKey().getAlgorithm();
        if (!certAlgorithm.equals(key.getAlgorithm())) {
            throw new IllegalArgumentException("TLS key " + keyPem + " is " + key.getAlgorithm()
                    + " but certificate " + certPem + " holds an " + certAlgorithm + " public key");
        }
        char[] password = STORE_PASSWORD.toCharArray();
        return new TlsMaterial(chain, key, keyStore(chain, key, password), password);
    }

    private static KeyStore keyStore(X509Certificate[] chain, PrivateKey key, char[] password) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(TlsMaterial.ALIAS, key, password, chain);
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a key store from the TLS material: " + e, e);
        }
    }

    /**
     * Base64 of the SHA-256 of the leaf certificate's SubjectPublicKeyInfo: what Chromium's
     * {@code --ignore-certificate-errors-spki-list} takes to trust a self-signed certificate (also for QUIC).
     */
    static String spkiSha256Base64(TlsMaterial material) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(material.chain()[0].getPublicKey().getEncoded());
            return Base64.getEncoder().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate[] readChain(Path file) {
        List<X509Certificate> certs = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block block : blocks(file)) {
                if (block.type().equals("CERTIFICATE")) {
                    Certificate c = factory.generateCertificate(new ByteArrayInputStream(block.der()));
                    certs.add((X509Certificate) c);
                }
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("TLS certificate " + file + ": " + e.getMessage(), e);
        }
        if (certs.isEmpty()) {
            throw new IllegalArgumentException("TLS certificate " + file + ": no BEGIN CERTIFICATE block");
        }
        return certs.toArray(new X509Certificate[0]);
    }

    private static PrivateKey readKey(Path file) {
        for (Block block : blocks(file)) {
            byte[] pkcs8;
            switch (block.type()) {
                case "PRIVATE KEY" -> pkcs8 = block.der();
                case "RSA PRIVATE KEY" -> pkcs8 = Der.pkcs8(Der.RSA_ALGORITHM, block.der());
                case "EC PRIVATE KEY" -> pkcs8 = Der.pkcs8(Der.ecAlgorithm(block.der(), file), block.der());
                case "ENCRYPTED PRIVATE KEY" -> throw new IllegalArgumentException(
                        "TLS key " + file + " is encrypted; give an unencrypted key (openssl pkey -in KEY -out PLAIN)");
                default -> {
                    continue; // e.g. EC PARAMETERS ahead of the key
                }
            }
            for (String algorithm : new String[] {"RSA", "EC"}) {
                try {
                    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
                } catch (GeneralSecurityException e) {
                    // try the next algorithm
                }
            }
            throw new IllegalArgumentException("TLS key " + file + ": neither an RSA nor an EC key");
        }
        throw new IllegalArgumentException("TLS key " + file + ": no BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block");
    }

    private record Block(String type, byte[] der) {
    }

    private static List<Block> blocks(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read TLS file " + file + ": " + e, e);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher m = PEM.matcher(text);
        while (m.find()) {
            blocks.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
        }
        return blocks;
    }

    /** Just enough DER to wrap PKCS#1 and SEC1 keys into PKCS#8. */
    private static final class Der {
        /** AlgorithmIdentifier { rsaEncryption, NULL }. */
        static final byte[] RSA_ALGORITHM = sequence(concat(
                new byte[] {0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01},
                new byte[] {0x05, 0x00}));
        static final byte[] EC_PUBLIC_KEY_OID = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};

        /** AlgorithmIdentifier { id-ecPublicKey, namedCurve } with the curve OID found in the SEC1 key. */
        static byte[] ecAlgorithm(byte[] sec1, Path file) {
            // ECPrivateKey ::= SEQUENCE { version INTEGER, privateKey OCTET STRING, [0] parameters, [1] publicKey }
            int[] seq = header(sec1, 0);
            int pos = seq[1];
            int end = seq[1] + seq[2];
            while (pos < end) {
                int[] h = header(sec1, pos);
                if ((sec1[pos] & 0xff) == 0xa0) {
                    int[] oid = header(sec1, h[1]);
                    byte[] curve = java.util.Arrays.copyOfRange(sec1, h[1], oid[1] + oid[2]);
                    return sequence(concat(EC_PUBLIC_KEY_OID, curve));
                }
                pos = h[1] + h[2];
            }
            throw new IllegalArgumentException("TLS key " + file + ": the EC key names no curve");
        }

        static byte[] pkcs8(byte[] algorithm, byte[] key) {
            return sequence(concat(new byte[] {0x02, 0x01, 0x00}, algorithm, tagged(0x04, key)));
        }

        /** {tag, content start, content length} of the element at {@code pos}. */
        static int[] header(byte[] der, int pos) {
            int tag = der[pos] & 0xff;
            int len = der[pos + 1] & 0xff;
            int start = pos + 2;
            if (len > 0x80) {
                int n = len - 0x80;
                len = 0;
                for (int i = 0; i < n; i++) {
                    len = (len << 8) | (der[start + i] & 0xff);
                }
                start += n;
            }
            return new int[] {tag, start, len};
        }

        static byte[] sequence(byte[] content) {
            return tagged(0x30, content);
        }

        static byte[] tagged(int tag, byte[] content) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
            out.write(tag);
            int len = content.length;
            if (len < 0x80) {
                out.write(len);
            } else if (len < 0x100) {
                out.write(0x81);
                out.write(len);
            } else if (len < 0x10000) {
                out.write(0x82);
                out.write(len >> 8);
                out.write(len);
            } else {
                out.write(0x83);
                out.write(len >> 16);
                out.write(len >> 8);
                out.write(len);
            }
            out.writeBytes(content);
            return out.toByteArray();
        }

        static byte[] concat(byte[]... parts) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] p : parts) {
                out.writeBytes(p);
            }
            return out.toByteArray();
        }
    }
}
