# What the HTTP/2, TLS, WebTransport and env-identity integration tests share: test certificates (RSA and a
# short-lived EC one from the openssl command line, EC from the development-certificate path), the TLS port a
# server announced, runs of protocol-h3's HTTP/3 and WebTransport test clients, and curl runs with their
# output and timing.
require "open3"
require "server_helper"

module TlsHelper
  # [cert, key] paths of a fresh self-signed RSA certificate for localhost in +dir+ (PKCS#1 key as the
  # openssl command writes it with -traditional, to cover that PEM form).
  def rsa_certificate(dir)
    cert = File.join(dir, "rsa.crt")
    key = File.join(dir, "rsa.key")
    out, status = Open3.capture2e("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                  "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                  "-keyout", key, "-out", cert)
    flunk("openssl req failed: #{out}") unless status.success?
    out, status = Open3.capture2e("openssl", "rsa", "-in", key, "-out", key, "-traditional")
    flunk("openssl rsa failed: #{out}") unless status.success?
    [cert, key]
  end

  # [cert, key] of a fresh self-signed ECDSA P-256 certificate for 127.0.0.1 valid 10 days: what a browser's
  # WebTransport serverCertificateHashes accepts (at most 14 days).
  def ec_certificate(dir)
    cert = File.join(dir, "ec.crt")
    key = File.join(dir, "ec.key")
    out, status = Open3.capture2e("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                  "-nodes", "-days", "10", "-subj", "/CN=127.0.0.1",
                                  "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", cert)
    flunk("openssl req failed: #{out}") unless status.success?
    [cert, key]
  end

  # The port of the server's first https:// listener.
  def tls_port(server)
    Integer(server.output[%r{listening on https://127\.0\.0\.1:(\d+)}, 1] || flunk(with_log(server, "no https listener")))
  end

  # The SPKI hash the host printed for its TLS listener.
  def spki_hash(server)
    server.output[/certificate SPKI sha256 (\S+)/, 1] || flunk(with_log(server, "no SPKI line"))
  end

  def require_tool(name)
    IntegrationTest.find_executable(name) || skip_or_fail("#{name} is not installed")
  end

  H3_CLIENT = File.join(PumaPlusServer::ROOT, "bundles/protocol-h3/target")
  JAVA = File.join(ENV.fetch("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin/java")

  # The class path of bundles/protocol-h3's test clients (built by script/build); fails the test without them.
  def h3_client_classpath
    classes = File.join(H3_CLIENT, "test-classes")
    unless File.directory?(classes) && File.directory?(File.join(H3_CLIENT, "h3-client-lib"))
      flunk("the HTTP/3 test client is not built (#{classes}); run script/build")
    end
    "#{classes}:#{H3_CLIENT}/classes:#{H3_CLIENT}/h3-client-lib/*"
  end

  # Runs Flupke's HTTP/3 client (bundles/protocol-h3's H3Probe, built by script/build, which logs through
  # the bundle's KwikLog) with +args+ (leading -D options go to the JVM); returns [stdout, stderr, status].
  def h3_probe(*args, timeout: 60)
    jvm_options, args = args.partition { |arg| arg.start_with?("-D") }
    Open3.capture3("timeout", timeout.to_s, JAVA, *jvm_options, "-cp", h3_client_classpath,
                   "dev.pumaplus.protocol.h3.H3Probe", *args)
  end

  # Runs the raw WebTransport client on Kwik (bundles/protocol-h3's WebTransportProbe) with +args+, yielding
  # each line it prints as it comes (if given a block); returns [lines, stderr, status].
  def webtransport_probe(*args, timeout: 90)
    lines = []
    Open3.popen3("timeout", timeout.to_s, JAVA, "-cp", h3_client_classpath,
                 "dev.pumaplus.protocol.h3.WebTransportProbe", *args) do |stdin, stdout, stderr, process|
      stdin.close
      errors = Thread.new { stderr.read }
      stdout.each_line do |line|
        next if line.start_with?("SECURITY WARNING") # Kwik's, on stdout, for the unchecked certificate

        lines << line.chomp
        yield lines.last if block_given?
      end
      [lines, errors.value, process.value]
    end
  end

  # GET over HTTP/3: [status, body, headers (lower-case name => [values])].
  def h3_get(url, *headers)
    out, err, status = h3_probe("get", url, *headers)
    ended = status.exitstatus == 124 ? "killed by its timeout" : "exit #{status.exitstatus}" # timeout(1)'s 124
    assert status.success?, "HTTP/3 GET #{url} failed (#{ended}): #{err}\n#{out}"
    head, body = out.split("\nbody\n", 2)
    code = Integer(head[/^status (\d+)/, 1])
    fields = head.scan(/^header ([^:]+): (.*)$/).group_by(&:first).transform_values { |v| v.map(&:last) }
    [code, body, fields]
  end

  # Runs curl with +args+ (silent, failing on transport errors); returns [stdout, stderr, status].
  def curl(*args, timeout: 15)
    require_tool("curl")
    Open3.capture3("curl", "-sS", "--max-time", timeout.to_s, *args)
  end

  # Runs curl -N and returns [monotonic seconds of each read that delivered bytes, all bytes].
  def curl_arrivals(*args, timeout: 15)
    require_tool("curl")
    arrivals = []
    data = +""
    IO.popen(["curl", "-sS", "-N", "--max-time", timeout.to_s, *args], err: File::NULL) do |io|
      loop do
        chunk = io.readpartial(65_536)
        arrivals << [monotonic, chunk]
        data << chunk
      rescue EOFError
        break
      end
    end
    [arrivals, data]
  end
end
