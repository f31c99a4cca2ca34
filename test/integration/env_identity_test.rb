# The claim that every protocol reduces a request to the same frame: one request sent over HTTP/1.1, h2c
# (prior knowledge and upgrade), h2 over TLS, HTTP/1.1 over TLS and HTTP/3 reaches the worker as the same env pairs,
# apart from SERVER_PROTOCOL and the scheme's fields (rack.url_scheme, SERVER_PORT's default port) and the
# per-request id. The app dumps the pairs it received (apps/env_dump.ru), so the comparison is on what the
# worker decoded from the REQUEST frame. Headers are sent in name order (Host, which h2/h3 carry as
# :authority, first): the HTTP/3 library hands headers over sorted by name (see docs/ARCHITECTURE.md), so
# only in that order can HTTP/3's pairs be byte-identical; the other protocols keep arrival order.
require "json"
require "server_helper"
require "tls_helper"

class EnvIdentityTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 90

  HEADERS = ["Accept: */*", "Content-Type: text/plain", "Cookie: a=1", "User-Agent: env-probe/1", "X-Probe: one"].freeze
  # Repeated fields, joined by the host (Cookie with "; "). Not sent over HTTP/3: its client (Flupke) merges
  # repeated fields into one comma-joined field before sending, so the request on the wire differs.
  REPEATED = ["Accept: */*", "Cookie: a=1", "Cookie: b=2", "X-Probe: one", "X-Probe: two"].freeze
  SCHEME_FIELDS = %w[SERVER_PROTOCOL rack.url_scheme puma_plus.request_id].freeze

  def test_h1_h2c_h2_h1_over_tls_and_h3_give_byte_identical_env_pairs
    dir = temp_dir
    cert, key = rsa_certificate(dir)
    server = start_server(app("env_dump.ru"), threads: 2,
                          args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}", "--bundles", "h1,h2,h3"])
    tls = tls_port(server)
    host = "localhost:#{tls}" # the authority HTTP/3 sends (its client may not set Host): the same for all
    plain = "http://127.0.0.1:#{server.port}/env/path?b=2&a=1"
    secure = "https://127.0.0.1:#{tls}/env/path?b=2&a=1"
    variants = {
      "h1" => ["--http1.1", plain],
      "h2c-prior-knowledge" => ["--http2-prior-knowledge", plain],
      "h2c-upgrade" => ["--http2", plain],
      "h1-tls" => ["--http1.1", "-k", secure],
      "h2-tls" => ["--http2", "-k", secure]
    }
    [HEADERS, REPEATED].each do |sent|
      envs = variants.to_h do |name, args|
        headers = ["Host: #{host}", *sent].flat_map { |h| ["-H", h] }
        out, err, status = curl(*headers, *args)
        assert status.success?, with_log(server, "#{name}: #{err}")
        [name, JSON.parse(out)]
      end
      if sent == HEADERS
        code, body, = h3_get("https://localhost:#{tls}/env/path?b=2&a=1", *HEADERS)
        assert_equal 200, code
        envs["h3"] = JSON.parse(body)
      end
      reference = envs.fetch("h1")
      assert_equal "HTTP/1.1", value(reference, "SERVER_PROTOCOL")
      assert_equal host, value(reference, "HTTP_HOST")
      envs.each do |name, env|
        assert_equal strip(reference), strip(env), "#{name} env differs from HTTP/1.1's beyond the scheme fields"
      end
      next if sent == HEADERS

      assert_equal "a=1; b=2", value(reference, "HTTP_COOKIE")
      assert_equal "one, two", value(reference, "HTTP_X_PROBE")
      assert_equal %w[HTTP/2 HTTP/2 HTTP/2],
                   envs.values_at("h2c-prior-knowledge", "h2c-upgrade", "h2-tls").map { |e| value(e, "SERVER_PROTOCOL") }
      assert_equal %w[http https https], envs.values_at("h2c-upgrade", "h1-tls", "h2-tls").map { |e| value(e, "rack.url_scheme") }
    end
    code, body, = h3_get("https://localhost:#{tls}/env/path", *HEADERS)
    assert_equal [200, "HTTP/3", "https"], [code, value(JSON.parse(body), "SERVER_PROTOCOL"), value(JSON.parse(body), "rack.url_scheme")]
  end

  def value(env, name)
    env.find { |n, _| n == name }&.last
  end

  # The pairs in frame order, with the scheme fields blanked (kept in place, so order still counts).
  def strip(env)
    env.map { |name, v| SCHEME_FIELDS.include?(name) ? [name, "*"] : [name, v] }
  end
end
