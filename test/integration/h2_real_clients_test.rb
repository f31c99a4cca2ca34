# HTTP/2 against the real server with real clients: curl over h2 (TLS, ALPN), h2c prior knowledge and the
# h2c upgrade, HTTP/1.1 beside them on the same listeners, and h2load's multiplexed load with no failures.
require "digest"
require "server_helper"
require "tls_helper"

class H2RealClientsTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 120

  def setup
    dir = temp_dir
    cert, key = rsa_certificate(dir)
    @server = start_server(app("probe.ru"), threads: 4,
                           args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}"])
    @tls = tls_port(@server)
  end

  def test_curl_speaks_http1_h2c_upgrade_h2c_prior_knowledge_and_h2_over_tls_and_tls_1_1_is_refused
    cases = {
      ["--http1.1", "http://127.0.0.1:#{@server.port}/"] => "HTTP/1.1 200",
      ["--http2", "http://127.0.0.1:#{@server.port}/"] => "HTTP/2 200", # Upgrade: h2c, then 101
      ["--http2-prior-knowledge", "http://127.0.0.1:#{@server.port}/"] => "HTTP/2 200",
      ["--http1.1", "-k", "https://127.0.0.1:#{@tls}/"] => "HTTP/1.1 200",
      ["--http2", "-k", "https://127.0.0.1:#{@tls}/"] => "HTTP/2 200" # ALPN h2
    }
    cases.each do |args, status|
      out, err, result = curl("-i", *args)
      assert result.success?, with_log(@server, "curl #{args.join(' ')} failed: #{err}")
      assert_includes out, status, "curl #{args.join(' ')}"
      assert_match(/^hello$/, out, "curl #{args.join(' ')}")
    end
    upgraded, = curl("-i", "--http2", "http://127.0.0.1:#{@server.port}/")
    assert_match(%r{\AHTTP/1\.1 101 Switching Protocols}, upgraded)

    # TLS below 1.2 is refused (one server for both claims: each boot costs seconds).
    require_tool("openssl")
    out, = Open3.capture2e("openssl", "s_client", "-connect", "127.0.0.1:#{@tls}", "-tls1_1", stdin_data: "")
    assert_match(/Cipher is \(NONE\)/, out, "a TLS 1.1 handshake completed")
    assert_match(/alert protocol version|no protocols available|wrong version/i, out)
  end

  def test_early_hints_arrive_as_103_before_the_response_over_h2c_and_h2
    [["--http2-prior-knowledge", "http://127.0.0.1:#{@server.port}/hints"],
     ["--http2", "-k", "https://127.0.0.1:#{@tls}/hints"]].each do |args|
      out, err, result = curl("-i", *args)
      assert result.success?, with_log(@server, "curl #{args.join(' ')} failed: #{err}")
      hints = out.index("HTTP/2 103") || flunk("no 103 over #{args.last}:\n#{out}")
      final = out.index("HTTP/2 200") || flunk("no 200 over #{args.last}:\n#{out}")
      assert_operator hints, :<, final, out
      assert_match(%r{^link: </style.css>; rel=preload; as=style\r?$}, out[hints...final])
      assert_match(/^hinted$/, out)
    end
  end

  def test_request_body_arrives_whole_over_h2_including_one_streamed_past_one_mebibyte
    [[10, "small"], [3 * 1024 * 1024 + 7, "large"]].each do |size, what|
      body = Random.new(size).bytes(size)
      path = File.join(temp_dir, "body")
      File.binwrite(path, body)
      out, err, result = curl("--http2", "-k", "--data-binary", "@#{path}", "https://127.0.0.1:#{@tls}/echo")
      assert result.success?, "#{what}: #{err}"
      assert_equal "POST len=#{size} sha256=#{Digest::SHA256.hexdigest(body)}\n", out, what
    end
  end

  def test_h2load_over_h2_and_h2c_completes_ten_thousand_requests_without_a_failure
    require_tool("h2load")
    ["https://127.0.0.1:#{@tls}/", "http://127.0.0.1:#{@server.port}/"].each do |url|
      out, status = Open3.capture2e("h2load", "-c10", "-m10", "-n10000", url)
      assert status.success?, out
      summary = out[/^requests: .*$/] || flunk("no summary from h2load:\n#{out}")
      diag("#{url}: #{summary} #{out[/^finished in .*$/]}")
      assert_match(/10000 succeeded, 0 failed, 0 errored, 0 timeout/, summary, "#{url}\n#{out}")
    end
  end
end
