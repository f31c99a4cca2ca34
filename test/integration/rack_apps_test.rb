# Real frameworks on both Rack versions, end to end through the real server: the Sinatra 4.1 example on
# trixie's Rack 3.1, and the Rails 6.1 example (Debian's Rack 2.2) with preload_app!, four forked workers of
# one thread each reconnecting Active Record in on_worker_boot, twenty concurrent form POSTs, HTML views and
# an ActionController::Live stream. (The Sinatra 3 example on Rack 2.2 is covered by real_apps_test.rb.)
require "server_helper"
require "cgi"
require "json"
require "sqlite3"
require "uri"
require "rack3_helper"

class RackAppsTest < IntegrationTest
  include Rack3LoadPath
  TEST_TIMEOUT = 150
  EXAMPLES = File.join(PumaPlusServer::ROOT, "examples")
  FORM = { "Content-Type" => "application/x-www-form-urlencoded" }.freeze

  def test_sinatra_4_1_on_rack_3_1_serves_page_form_params_stream_and_early_hints
    server = start_server("config.ru", chdir: File.join(EXAMPLES, "sinatra4"), workers: 2, threads: 2,
                                       env: { "RUBYLIB" => rack3_rubylib })

    versions = JSON.parse(server.request("GET", "/versions").body)
    assert_match(/\A4\.1\./, versions["sinatra"])
    assert_match(/\A3\.1\./, versions["rack"])

    page = server.request("GET", "/")
    assert_equal 200, page.status, with_log(server, page.body)
    assert_includes page.body, '<form method="post" action="/greetings">'
    assert_equal "text/html;charset=utf-8", page["Content-Type"]

    greeting = server.request("POST", "/greetings", FORM, body: URI.encode_www_form(name: "Grace Hopper"))
    assert_equal [201, "Hello, Grace Hopper!\n"], [greeting.status, greeting.body]

    echoed = server.request("POST", "/params/seg?q=x%20y", FORM, body: "a=1&b[]=2&b[]=3")
    assert_equal({ "q" => "x y", "a" => "1", "b" => %w[2 3], "segment" => "seg", "request_method" => "POST" },
                 JSON.parse(echoed.body))

    parts, stream = timed_chunks(server, "/stream")
    assert_equal "part 0\npart 1\npart 2\n", stream
    assert_operator parts.first[0], :<, parts.last[0] - 0.25, "the first part leaves before the stream ends"

    connection = server.connect
    connection.write(RawHttp.request("GET", "/hints"))
    hints = connection.read_response
    assert_equal [103, "</app.css>; rel=preload; as=style"], [hints.status, hints["Link"]]
    assert_equal [200, "hinted\n"], connection.read_response.then { |r| [r.status, r.body] }
    connection.close

    assert_equal 404, server.request("GET", "/no/such/page").status
  end

  def test_rails_on_four_single_thread_workers_takes_twenty_concurrent_form_posts_and_streams_live
    database = File.join(temp_dir, "rails.sqlite3")
    # The example's config with shedding off: the burst comes right after boot, when S is the mean of a cold
    # worker's first requests, and W_pred over it shed one POST of 20 once (docs/CONTROL.md, "Shedding").
    config = File.join(temp_dir, "puma-plus.rb")
    File.write(config, File.read(File.join(EXAMPLES, "rails/config/puma-plus.rb")) + "shed_wait_limit false\n")
    server = start_server("config.ru", config: config, chdir: File.join(EXAMPLES, "rails"),
                                       workers: 4, threads: 1, env: { "DATABASE_PATH" => database })
    assert_equal 4, server.slots, "4 workers x 1 thread"
    assert_equal 4, server.worker_pids.uniq.size, "four forked workers"

    page = server.request("GET", "/rows")
    assert_equal 200, page.status, with_log(server, page.body[0, 2000])
    cookie = page.all("Set-Cookie").map { |c| c.split(";").first }.join("; ")
    token = CGI.unescapeHTML(page.body[/<input type="hidden" name="authenticity_token" value="([^"]+)"/, 1])

    names = (1..20).map { |i| "row #{i}" }
    posts = names.map do |name|
      Thread.new do
        server.request("POST", "/rows", FORM.merge("Cookie" => cookie),
                       body: URI.encode_www_form("authenticity_token" => token, "row[name]" => name), timeout: 60)
      end
    end
    statuses = posts.map { |t| t.value.status }
    assert_equal [302] * 20, statuses, with_log(server, "the 20 concurrent POSTs")

    stored = SQLite3::Database.new(database).execute("SELECT name FROM rows").flatten
    assert_equal names.sort, stored.sort, "twenty rows afterwards"
    listed = server.request("GET", "/rows").body.scan(%r{<li class="row">(.*?)</li>}m).flatten.map(&:strip)
    assert_equal names.sort, listed.sort, "the HTML view lists them"

    parts, html = timed_chunks(server, "/stream")
    assert_equal "<!doctype html>\n<title>stream</title>\n<ol>\n" + (0..4).map { |i| "<li>part #{i}</li>\n" }.join +
                 "</ol>\n", html
    assert_operator parts.size, :>=, 3, "ActionController::Live writes arrive as separate chunks"
    assert_operator parts.first[0], :<, parts.last[0] - 0.25, "the first part leaves before the action ends"
  end

  def test_rack_files_sends_a_whole_file_from_the_host_and_a_range_through_the_worker
    root = temp_dir
    data = Random.new(11).bytes(8 * 1024 * 1024 + 5)
    File.binwrite(File.join(root, "big.bin"), data)
    server = start_server(app("files.ru"), workers: 1, threads: 2, env: { "FILES_ROOT" => root })

    whole = server.request("GET", "/big.bin", {}, timeout: 30)
    assert_equal [200, data.bytesize.to_s], [whole.status, whole["Content-Length"]]
    assert whole.body == data, "the 8 MiB file arrives intact"

    range = server.request("GET", "/big.bin", { "Range" => "bytes=100-199" })
    assert_equal [206, "bytes 100-199/#{data.bytesize}", data.byteslice(100, 100)],
                 [range.status, range["Content-Range"], range.body]

    head = server.request("HEAD", "/big.bin")
    assert_equal [200, data.bytesize.to_s, ""], [head.status, head["Content-Length"], head.body]
  end

  private

  # GETs +target+ on a raw connection and reads its chunked body as it arrives: [[seconds, chunk], ...] and
  # the whole body.
  def timed_chunks(server, target)
    connection = server.connect
    socket = connection.socket
    socket.write(RawHttp.request("GET", target))
    started = monotonic
    data = +"".b
    data << socket.readpartial(65_536) until data.include?("\r\n\r\n")
    head, rest = data.split("\r\n\r\n", 2)
    assert_match(/transfer-encoding: chunked/i, head)
    parts = []
    buffer = rest
    body = +"".b
    loop do
      while (line_end = buffer.index("\r\n"))
        size = Integer(buffer[0, line_end], 16)
        break if buffer.bytesize < line_end + 2 + size + 2

        chunk = buffer.byteslice(line_end + 2, size)
        buffer = buffer.byteslice((line_end + 4 + size)..)
        return [parts, body] if size.zero?

        parts << [monotonic - started, chunk]
        body << chunk
      end
      raise RawHttp::Timeout, "stream stalled" unless IO.select([socket], nil, nil, 10)

      buffer << socket.readpartial(65_536)
    end
  ensure
    connection&.close
  end

  def with_log(server, message)
    "#{message}\n--- server output ---\n#{server.output_tail(40)}"
  end
end
