# frozen_string_literal: true

# The development TLS certificate: when an ssl:// bind names no certificate and the environment is
# development, Configuration uses a self-signed certificate for localhost, generated once under
# $PUMA_PLUS_HOME/tls (default ~/.puma-plus/tls) and reused on every later start, so a browser told to
# trust it (Chromium: --ignore-certificate-errors-spki-list with the SPKI hash the host prints) keeps
# trusting it. The key is EC P-256, which TLS over TCP and QUIC both take.

require "openssl"
require "fileutils"
require "securerandom"

module PumaPlus
  module DevCertificate
    DAYS = 365

    module_function

    # The directory holding localhost.crt and localhost.key.
    def directory(env = ENV)
      home = env["PUMA_PLUS_HOME"]
      home = File.join(Dir.home, ".puma-plus") if home.nil? || home.strip.empty?
      File.join(home, "tls")
    end

    # [cert_path, key_path], generating them first if they are missing or the certificate has expired.
    # +log+ receives one line when a certificate is generated.
    def ensure(env: ENV, log: nil)
      dir = directory(env)
      cert_path = File.join(dir, "localhost.crt")
      key_path = File.join(dir, "localhost.key")
      unless usable?(cert_path, key_path)
        generate(dir, cert_path, key_path)
        log&.call("generated a self-signed development certificate for localhost: #{cert_path}")
      end
      [cert_path, key_path]
    end

    def usable?(cert_path, key_path)
      return false unless File.file?(cert_path) && File.file?(key_path)

      cert = OpenSSL::X509::Certificate.new(File.read(cert_path))
      cert.not_after > Time.now + 86_400
    rescue OpenSSL::OpenSSLError
      false
    end

    def generate(dir, cert_path, key_path)
      FileUtils.mkdir_p(dir, mode: 0o700)
      key = OpenSSL::PKey::EC.generate("prime256v1")
      cert = OpenSSL::X509::Certificate.new
      cert.version = 2
      cert.serial = OpenSSL::BN.new(SecureRandom.hex(16), 16)
      name = OpenSSL::X509::Name.parse("/CN=localhost/O=puma-plus development")
      cert.subject = name
      cert.issuer = name
      cert.public_key = key
      cert.not_before = Time.now - 60
      cert.not_after = Time.now + DAYS * 86_400
      ext = OpenSSL::X509::ExtensionFactory.new(cert, cert)
      cert.add_extension(ext.create_extension("subjectAltName", "DNS:localhost,IP:127.0.0.1,IP:::1", false))
      cert.add_extension(ext.create_extension("basicConstraints", "CA:FALSE", true))
      cert.add_extension(ext.create_extension("keyUsage", "digitalSignature", true))
      cert.add_extension(ext.create_extension("extendedKeyUsage", "serverAuth", false))
      cert.sign(key, OpenSSL::Digest.new("SHA256"))
      # Written beside and renamed: two processes starting at once never read half a file.
      write_atomically(key_path, key.private_to_pem, 0o600)
      write_atomically(cert_path, cert.to_pem, 0o644)
    end

    def write_atomically(path, content, mode)
      tmp = "#{path}.#{Process.pid}.tmp"
      File.open(tmp, File::WRONLY | File::CREAT | File::TRUNC, mode) { |f| f.write(content) }
      File.rename(tmp, path)
    end
  end
end
