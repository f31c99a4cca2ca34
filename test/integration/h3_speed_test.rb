# HTTP/3's sequential latency is within 3x of h2's on loopback, once both are warm: the same /hello-style
# request, one connection per protocol, 300 warm-up then 300 timed requests each (H3Probe compare). Cold,
# Kwik and Flupke run interpreted and each request took 6-13 ms (docs/benchmarks/NOTEBOOK.md, "HTTP/3").
require "server_helper"
require "tls_helper"

class H3SpeedTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 180
  ATTEMPTS = 2 # a loaded 2-core machine can stall either run; the claim must hold in one of them

  def test_sequential_h3_p50_is_within_three_times_h2_p50_on_loopback
    cert, key = rsa_certificate(temp_dir)
    server = start_server(app("probe.ru"), threads: 1,
                          args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}", "--bundles", "h1,h2,h3"])
    url = "https://localhost:#{tls_port(server)}/"
    seen = []
    ATTEMPTS.times do
      out, err, status = h3_probe("-Djdk.internal.httpclient.disableHostnameVerification=true", "compare", url, "300", "300",
                                  timeout: 150)
      assert status.success?, "#{err}\n#{out}"
      h2 = Integer(out[/h2_p50_us (\d+)/, 1])
      h3 = Integer(out[/h3_p50_us (\d+)/, 1])
      diag("sequential p50: h2 #{h2} us, h3 #{h3} us (#{(h3.to_f / h2).round(2)}x)")
      return if h3 <= 3 * h2

      seen << [h2, h3]
    end
    flunk("h3 p50 over 3x h2 p50 in every attempt ([h2_us, h3_us]): #{seen.inspect}")
  end
end
