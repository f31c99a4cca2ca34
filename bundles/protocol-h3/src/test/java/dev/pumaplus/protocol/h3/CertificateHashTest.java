/*
 * Holds CertificateHash to certificates keytool makes: the hash is SHA-256 over the DER encoding, and only an
 * ECDSA P-256 certificate valid at most 14 days qualifies for serverCertificateHashes.
 */
package dev.pumaplus.protocol.h3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CertificateHashTest {

    @TempDir
    Path dir;

    private X509Certificate keytool(String alias, String... keyArgs) throws Exception {
        Path store = dir.resolve(alias + ".p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        String[] base = {keytool, "-genkeypair", "-alias", alias, "-keystore", store.toString(), "-storetype",
                "PKCS12", "-storepass", "secret", "-dname", "CN=127.0.0.1"};
        String[] command = new String[base.length + keyArgs.length];
        System.arraycopy(base, 0, command, 0, base.length);
        System.arraycopy(keyArgs, 0, command, base.length, keyArgs.length);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), out);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "secret".toCharArray());
        }
        return (X509Certificate) ks.getCertificate(alias);
    }

    @Test
    void anEcdsaP256CertificateOfTenDaysQualifiesAndIsHashedOverItsDer() throws Exception {
        X509Certificate cert = keytool("ec", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "10");
        assertNull(CertificateHash.unfitForHashes(cert));
        String expected = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        assertEquals(expected, CertificateHash.sha256Base64(cert));
        assertTrue(CertificateHash.line("https://127.0.0.1:1", cert).endsWith("(serverCertificateHashes may name it)"));
    }

    @Test
    void aLongLivedOrNonP256CertificateDoesNotQualify() throws Exception {
        assertEquals("it is valid 365 days, more than 14", CertificateHash.unfitForHashes(
                keytool("year", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "365")));
        assertEquals("its key is not ECDSA P-256", CertificateHash.unfitForHashes(
                keytool("p384", "-keyalg", "EC", "-groupname", "secp384r1", "-validity", "10")));
        assertEquals("its key is not ECDSA P-256", CertificateHash.unfitForHashes(
                keytool("rsa", "-keyalg", "RSA", "-keysize", "2048", "-validity", "10")));
    }
}
