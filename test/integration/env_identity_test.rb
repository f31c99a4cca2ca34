# The claim that every protocol reduces a request to the same frame: one request sent over HTTP/1.1, h2c
# (prior knowledge and upgrade), h2 over TLS and HTTP/1.1 over TLS reaches the worker as the same env pairs,
# apart from SERVER_PROTOCOL and the scheme's fields (rack.url_scheme, SERVER_PORT's default port) and the
# per-request id. The app dumps the pairs it received (apps/env_dump.ru), so the comparison is on what the
# worker decoded from the REQUEST frame.
require "json"
require "server_helper"
require "tls_helper"

class EnvIdentityTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 90

  HEADERS = ["Host: example.test", "User-Agent: env-probe/1", "Accept: */*", "X-Probe: one",
             "X-Probe: two", "Cookie: a=1", "Cookie: b=2", "Content-Type: text/plain"].freeze
  SCHEME_FIELDS = %w[SERVER_PROTOCOL rack.url_scheme SERVER_PORT puma_plus.request_id].freeze

  def test_h1_h2c_h2_and_h1_over_tls_give_byte_identical_env_pairs
    dir = temp_dir
    cert, key = rsa_certificate(dir)
    server = start_server(app("env_dump.ru"), threads: 2, args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}"])
    tls = tls_port(server)
    plain = "http://127.0.0.1:#{server.port}/env/path?b=2&a=1"
    secure = "https://127.0.0.1:#{tls}/env/path?b=2&a=1"
    envs = {
      "h1" => ["--http1.1", plain],
      "h2c-prior-knowledge" => ["--http2-prior-knowledge", plain],
      "h2c-upgrade" => ["--http2", plain],
      "h1-tls" => ["--http1.1", "-k", secure],
      "h2-tls" => ["--http2", "-k", secure]
    }.to_h do |name, args|
      headers = HEADERS.flat_map { |h| ["-H", h] }
      out, err, status = curl(*headers, *args)
      assert status.success?, with_log(server, "#{name}: #{err}")
      [name, JSON.parse(out)]
    end

    reference = envs.fetch("h1")
    assert_equal "HTTP/1.1", value(reference, "SERVER_PROTOCOL")
    assert_equal "example.test", value(reference, "HTTP_HOST")
    assert_equal "a=1; b=2", value(reference, "HTTP_COOKIE")
    assert_equal "one, two", value(reference, "HTTP_X_PROBE")
    envs.each do |name, env|
      assert_equal strip(reference), strip(env), "#{name} env differs from HTTP/1.1's beyond the scheme fields"
    end
    assert_equal %w[HTTP/2 HTTP/2 HTTP/2], envs.values_at("h2c-prior-knowledge", "h2c-upgrade", "h2-tls").map { |e| value(e, "SERVER_PROTOCOL") }
    assert_equal %w[http https https], envs.values_at("h2c-upgrade", "h1-tls", "h2-tls").map { |e| value(e, "rack.url_scheme") }
    assert_equal %w[80 443], envs.values_at("h1", "h2-tls").map { |e| value(e, "SERVER_PORT") }
  end

  def value(env, name)
    env.find { |n, _| n == name }&.last
  end

  # The pairs in frame order, with the scheme fields blanked (kept in place, so order still counts).
  def strip(env)
    env.map { |name, v| SCHEME_FIELDS.include?(name) ? [name, "*"] : [name, v] }
  end
end
