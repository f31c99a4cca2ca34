/*
 * Claims about loading a TLS listener's PEM files (accept step): the key forms openssl writes (PKCS#8,
 * PKCS#1 RSA, SEC1 EC with its parameters block), the SPKI hash browsers take, and errors that name the file.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pumaplus.spi.TlsMaterial;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PemFilesTest {

    @TempDir
    Path dir;

    @Test
    void loadsPkcs1RsaAndSec1EcAndPkcs8KeysThatSignForTheirCertificate() throws Exception {
        openssl("genrsa", "-traditional", "-out", "rsa1.key", "2048");
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-out", "ec1.key"); // EC PARAMETERS + EC PRIVATE KEY
        openssl("pkcs8", "-topk8", "-nocrypt", "-in", "ec1.key", "-out", "ec8.key");
        for (String key : List.of("rsa1.key", "ec1.key", "ec8.key")) {
            String cert = key + ".crt";
            openssl("req", "-x509", "-new", "-key", key, "-subj", "/CN=localhost", "-days", "1", "-out", cert);
            String firstLine = Files.readAllLines(dir.resolve(key)).stream().filter(l -> l.startsWith("-----BEGIN")).reduce((a, b) -> b).orElseThrow();
            TlsMaterial material = PemFiles.load(dir.resolve(cert), dir.resolve(key));
            Signature signature = Signature.getInstance(material.privateKey().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA");
            signature.initSign(material.privateKey());
            signature.update(new byte[] {1, 2, 3});
            byte[] signed = signature.sign();
            signature.initVerify(material.chain()[0].getPublicKey());
            signature.update(new byte[] {1, 2, 3});
            assertTrue(signature.verify(signed), key + " (" + firstLine + ") does not match its certificate");
            assertTrue(material.keyStore().isKeyEntry(TlsMaterial.ALIAS));
        }
    }

    @Test
    void spkiHashIsTheOneOpensslComputes() throws Exception {
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "k.pem", "-subj", "/CN=localhost", "-days", "1", "-out", "c.pem");
        openssl("x509", "-in", "c.pem", "-pubkey", "-noout", "-out", "pub.pem");
        openssl("pkey", "-pubin", "-in", "pub.pem", "-outform", "der", "-out", "pub.der");
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(dir.resolve("pub.der")));
        String expected = java.util.Base64.getEncoder().encodeToString(digest);
        assertEquals(expected, PemFiles.spkiSha256Base64(PemFiles.load(dir.resolve("c.pem"), dir.resolve("k.pem"))));
    }

    @Test
    void encryptedMissingAndMismatchedKeysAreRefusedNamingTheFile() throws Exception {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "rsa.pem", "-subj", "/CN=x", "-days", "1", "-out", "rsa.crt");
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.pem");
        openssl("pkcs8", "-topk8", "-in", "rsa.pem", "-passout", "pass:secret", "-out", "enc.pem");
        IllegalArgumentException encrypted = assertThrows(IllegalArgumentException.class,
                () -> PemFiles.load(dir.resolve("rsa.crt"), dir.resolve("enc.pem")));
        assertTrue(encrypted.getMessage().contains("enc.pem") && encrypted.getMessage().contains("encrypted"), encrypted.getMessage());
        IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class,
                () -> PemFiles.load(dir.resolve("rsa.crt"), dir.resolve("ec.pem")));
        assertTrue(mismatch.getMessage().contains("ec.pem"), mismatch.getMessage());
        Files.writeString(dir.resolve("empty.pem"), "nothing here\n", StandardCharsets.US_ASCII);
        IllegalArgumentException noCert = assertThrows(IllegalArgumentException.class,
                () -> PemFiles.load(dir.resolve("empty.pem"), dir.resolve("rsa.pem")));
        assertTrue(noCert.getMessage().contains("empty.pem"), noCert.getMessage());
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }
}
