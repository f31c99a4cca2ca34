# A WebSocket echo through a full hijack, end to end: a minimal RFC 6455 client written here (masked client
# frames, 7/16/64-bit lengths, ping, closing handshake) talks to apps/websocket_echo.ru, which speaks the
# protocol itself on the IO rack.hijack gave it. Runs on Debian's Rack 2.2 and on trixie's Rack 3.1.
require "server_helper"
require "base64"
require "digest/sha1"
require "securerandom"
require "rack3_helper"

class WebsocketHijackTest < IntegrationTest
  include Rack3LoadPath
  TEST_TIMEOUT = 90
  GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  def test_websocket_echo_over_full_hijack_on_rack_2_2_while_the_other_slot_keeps_serving
    server = start_server(app("websocket_echo.ru"), workers: 1, threads: 2)
    echo_session(server)
  end

  def test_websocket_echo_over_full_hijack_on_rack_3_1
    server = start_server(app("websocket_echo.ru"), workers: 1, threads: 2, env: { "RUBYLIB" => rack3_rubylib })
    echo_session(server)
  end

  private

  def echo_session(server)
    socket = server.connect.socket
    key = Base64.strict_encode64(SecureRandom.random_bytes(16))
    socket.write("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:#{server.port}\r\nUpgrade: websocket\r\n" \
                 "Connection: Upgrade\r\nSec-WebSocket-Key: #{key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = read_until(socket, "\r\n\r\n")
    assert_match(%r{\AHTTP/1\.1 101 Switching Protocols\r\n}, head)
    assert_includes head.downcase, "sec-websocket-accept: #{Base64.strict_encode64(Digest::SHA1.digest(key + GUID))}".downcase
    @pending = head.byteslice((head.index("\r\n\r\n") + 4)..)

    send_frame(socket, 0x1, "hello, websocket")
    assert_equal [0x1, "hello, websocket"], read_frame(socket)

    medium = "m" * 300 # 16-bit length
    send_frame(socket, 0x1, medium)
    assert_equal [0x1, medium], read_frame(socket)

    large = Random.new(9).bytes(70_000) # 64-bit length
    send_frame(socket, 0x2, large)
    assert_equal [0x2, large], read_frame(socket)

    send_frame(socket, 0x9, "are you there")
    assert_equal [0xA, "are you there"], read_frame(socket)

    # The hijacked connection holds one slot while the app runs its loop inside call; the other serves.
    assert_equal "ok\n", server.request("GET", "/").body

    send_frame(socket, 0x8, [1000].pack("n"))
    assert_equal [0x8, [1000].pack("n")], read_frame(socket)
    assert_equal "", read_rest(socket), "the app closes after the closing handshake"

    # Both slots free again once the app returned from call.
    threads = 2.times.map { Thread.new { server.request("GET", "/").body } }
    assert_equal ["ok\n", "ok\n"], threads.map(&:value)
    refute_match(/LintError|raised/, server.output)

    # An app that raises after hijacking: the client's connection just closes, the link keeps serving.
    broken = server.connect.socket
    broken.write("GET /hijack-then-raise HTTP/1.1\r\nHost: x\r\n\r\n")
    @pending = +"".b
    assert_equal "", read_rest(broken), "no 500 is written on a hijacked connection"
    broken.close
    assert_equal ["ok\n", "ok\n"], 2.times.map { Thread.new { server.request("GET", "/").body } }.map(&:value)
    assert_match(/app raised after a full hijack: RuntimeError: failed after hijacking/, server.output)
    refute_match(/protocol error/, server.output)
  ensure
    socket&.close
  end

  # A masked client frame (RFC 6455 5.2/5.3).
  def send_frame(socket, opcode, payload)
    payload = payload.b
    mask = SecureRandom.random_bytes(4).bytes
    size = payload.bytesize
    header = [0x80 | opcode].pack("C")
    header << if size < 126 then [0x80 | size].pack("C")
              elsif size < 65_536 then [0x80 | 126, size].pack("Cn")
              else [0x80 | 127, size].pack("CQ>")
              end
    masked = payload.bytes.each_with_index.map { |byte, i| byte ^ mask[i % 4] }.pack("C*")
    socket.write(header + mask.pack("C*") + masked)
  end

  # [opcode, payload] of one server frame, which must be unmasked and final.
  def read_frame(socket)
    first, second = take(socket, 2).bytes
    assert_equal 0x80, first & 0x80, "FIN set"
    assert_equal 0, second & 0x80, "server frames are not masked"
    length = second & 0x7f
    length = take(socket, 2).unpack1("n") if length == 126
    length = take(socket, 8).unpack1("Q>") if length == 127
    [first & 0x0f, take(socket, length)]
  end

  def take(socket, size, timeout: 10)
    deadline = monotonic + timeout
    while @pending.bytesize < size
      raise RawHttp::Timeout, "wanted #{size} bytes, have #{@pending.bytesize}" unless IO.select([socket], nil, nil, [deadline - monotonic, 0].max)

      @pending << socket.readpartial(65_536)
    end
    @pending.slice!(0, size)
  end

  def read_until(socket, marker, timeout: 10)
    data = +"".b
    deadline = monotonic + timeout
    until data.include?(marker)
      raise RawHttp::Timeout, "no #{marker.inspect} in #{data.inspect}" unless IO.select([socket], nil, nil, [deadline - monotonic, 0].max)

      data << socket.readpartial(65_536)
    end
    data
  end

  def read_rest(socket, timeout: 10)
    deadline = monotonic + timeout
    loop do
      raise RawHttp::Timeout, "no EOF" unless IO.select([socket], nil, nil, [deadline - monotonic, 0].max)

      @pending << socket.readpartial(65_536)
    end
  rescue EOFError, Errno::ECONNRESET
    @pending
  end
end
