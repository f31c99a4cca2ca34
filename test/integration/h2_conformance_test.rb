# RFC 9113's MUSTs for what a client sends, against the real host and a real Ruby worker: raw frames over
# TLS (ALPN h2), h2c prior knowledge and the h2c upgrade, each case answered with the stream or connection
# error its section names within a second, the app never called for the bad request (the probe app logs
# every call), and another stream (after a stream error) or connection (after a connection error) served.
require "openssl"
require "socket"
require "server_helper"
require "tls_helper"
require "h2_frames"

class H2ConformanceTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 180
  ERROR_WITHIN = 1.0 # seconds from the bad frame to its RST_STREAM or GOAWAY (issue 35)
  PROTOCOL_ERROR = 0x1
  FLOW_CONTROL_ERROR = 0x3
  STREAM_CLOSED = 0x5
  FRAME_SIZE_ERROR = 0x6

  # One client connection speaking raw frames: over TLS with ALPN h2, h2c with prior knowledge, or an
  # HTTP/1.1 request upgraded to h2c (whose stream 1 it is; the client's own streams start at 3).
  class RawH2
    include H2Frames

    def initialize(transport, test, preface: true)
      @test = test
      @buffer = +"".b
      @next_stream = 1
      case transport
      when :tls
        context = OpenSSL::SSL::SSLContext.new
        context.verify_mode = OpenSSL::SSL::VERIFY_NONE
        context.alpn_protocols = ["h2"]
        @socket = OpenSSL::SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", test.tls), context)
        @socket.sync_close = true
        @socket.connect
        raise "ALPN chose #{@socket.alpn_protocol.inspect}" unless @socket.alpn_protocol == "h2"
      when :h2c
        @socket = TCPSocket.new("127.0.0.1", test.port)
      when :upgrade
        @socket = TCPSocket.new("127.0.0.1", test.port)
        @socket.write("GET #{test.target('upgrade')} HTTP/1.1\r\nHost: 127.0.0.1\r\n" \
                      "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAIAAAAA\r\n\r\n")
        fill until @buffer.include?("\r\n\r\n")
        head, @buffer = @buffer.split("\r\n\r\n", 2)
        raise "no 101 for the upgrade: #{head.inspect}" unless head.start_with?("HTTP/1.1 101")
        @next_stream = 3
      end
      write(PREFACE + frame(SETTINGS, 0, 0, "")) if preface
    end

    def new_stream
      (@next_stream += 2) - 2
    end

    def write(bytes)
      @socket.write(bytes)
    end

    def close
      @socket.close
    rescue IOError, SystemCallError
      nil
    end

    # HEADERS with every field a literal without indexing (RFC 7541 6.2.2), no Huffman coding.
    def headers(stream, fields, end_stream:)
      block = fields.map { |name, value| literal(name, value) }.join
      frame(HEADERS, END_HEADERS | (end_stream ? END_STREAM : 0), stream, block)
    end

    def request(stream, method, target, end_stream:, scheme: true, extra: {})
      fields = [[":method", method]]
      fields << [":scheme", "http"] if scheme
      fields += [[":path", target], [":authority", "127.0.0.1"]] + extra.to_a
      headers(stream, fields, end_stream: end_stream)
    end

    def data(stream, text, end_stream:)
      frame(DATA, end_stream ? END_STREAM : 0, stream, text)
    end

    # The next frame from the server, or :eof, or nil at +deadline+ (monotonic seconds). SETTINGS are
    # acknowledged on the way.
    def read_frame(deadline)
      loop do
        f, rest = take_frame(@buffer)
        if f
          @buffer = rest
          write(frame(SETTINGS, ACK, 0, "")) if f.type == SETTINGS && f.flags.zero?
          return f
        end
        return :eof unless fill(deadline)
        return nil if @test.monotonic > deadline
      end
    rescue IOError, SystemCallError
      :eof
    end

    # Reads what the socket has into the buffer; false at EOF, true otherwise (also when nothing came by
    # +deadline+).
    def fill(deadline = @test.monotonic + 10)
      loop do
        chunk = @socket.read_nonblock(65_536, exception: false)
        case chunk
        when nil then return false
        when :wait_readable
          remaining = deadline - @test.monotonic
          return true if remaining <= 0 || IO.select([@socket], nil, nil, remaining).nil?
        else
          @buffer << chunk
          return true
        end
      end
    end

  end

  attr_reader :tls

  def setup
    dir = temp_dir
    cert, key = rsa_certificate(dir)
    @calls = File.join(dir, "calls.log")
    @server = start_server(app("probe.ru"), workers: 1, threads: 4,
                           args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}"])
    @tls = tls_port(@server)
  end

  def port
    @server.port
  end

  # A probe target that logs its call under +id+; +path+ and +query+ pick what the app does.
  def target(id, path = "/", query = nil)
    "#{path}?log=#{@calls}&id=#{id}#{query ? "&#{query}" : ''}"
  end

  # Each case: [section, :stream or :connection error, code, whether the client preface is sent, and a
  # block that writes the bad frames (with the ids the app must never see) and returns the stream that
  # must be reset (stream errors)]. Frames of one case go out in one write, so they arrive together.
  def cases
    [
      ["3.5 an invalid connection preface", :connection, PROTOCOL_ERROR, false, lambda { |c, _id|
        c.write("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")
      }],
      ["5.1 DATA on a half-closed (remote) stream", :stream, STREAM_CLOSED, true, lambda { |c, id|
        s = c.new_stream # the request is whole and may reach the app; the DATA after it must not
        c.write(c.request(s, "GET", target("#{id}-whole", "/sleep", "ms=300"), end_stream: true) + c.data(s, "late", end_stream: true))
        s
      }],
      ["5.1 HEADERS on a half-closed (remote) stream", :stream, STREAM_CLOSED, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "GET", target("#{id}-whole", "/sleep", "ms=300"), end_stream: true) +
                c.request(s, "GET", target("#{id}-bad"), end_stream: true))
        s
      }],
      ["5.1 HEADERS on a closed stream", :connection, STREAM_CLOSED, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "GET", target("#{id}-whole"), end_stream: true))
        deadline = monotonic + 10
        until (f = c.read_frame(deadline)).is_a?(RawH2::Frame) && f.stream == s && (f.flags & RawH2::END_STREAM) != 0
          flunk("stream #{s} was not answered before the case: #{f.inspect}") unless f.is_a?(RawH2::Frame)
        end
        c.write(c.request(s, "GET", target("#{id}-bad"), end_stream: true))
      }],
      ["5.1.1 a stream id smaller than a previous one", :connection, PROTOCOL_ERROR, true, lambda { |c, id|
        skipped = c.new_stream
        opened = c.new_stream
        c.write(c.request(opened, "GET", target("#{id}-whole"), end_stream: true) +
                c.request(skipped, "GET", target("#{id}-bad"), end_stream: true))
      }],
      ["6.1 DATA on a stream not open", :stream, STREAM_CLOSED, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-whole", "/sleep", "ms=300"), end_stream: true) + c.data(s, "test", end_stream: true))
        s
      }],
      ["6.3 PRIORITY of a length other than 5", :stream, FRAME_SIZE_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false) + c.frame(0x2, 0, s, "\x80\x00\x00\x01"))
        s
      }],
      ["6.9 WINDOW_UPDATE of 0 on a stream", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false) + c.frame(0x8, 0, s, [0].pack("N")))
        s
      }],
      ["6.9.1 a stream window above 2^31-1", :stream, FLOW_CONTROL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        update = c.frame(0x8, 0, s, [0x7fff_ffff].pack("N"))
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false) + update + update)
        s
      }],
      ["8.1 a second HEADERS without END_STREAM", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false) + c.data(s, "test", end_stream: false) +
                c.headers(s, [["x-test", "ok"]], end_stream: false))
        s
      }],
      ["8.1.2.1 a pseudo-header field in trailers", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false) + c.data(s, "test", end_stream: false) +
                c.headers(s, [[":method", "POST"]], end_stream: true))
        s
      }],
      ["8.1.2.3 a request without :scheme", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "GET", target("#{id}-bad"), end_stream: true, scheme: false))
        s
      }],
      ["8.1.2.6 content-length below one DATA frame", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false, extra: { "content-length" => "1" }) +
                c.data(s, "test", end_stream: true))
        s
      }],
      ["8.1.2.6 content-length below the sum of DATA frames", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false, extra: { "content-length" => "5" }) +
                c.data(s, "test", end_stream: false) + c.data(s, "test", end_stream: true))
        s
      }],
      ["8.1.2.6 content-length above the DATA received", :stream, PROTOCOL_ERROR, true, lambda { |c, id|
        s = c.new_stream
        c.write(c.request(s, "POST", target("#{id}-bad", "/echo"), end_stream: false, extra: { "content-length" => "8" }) +
                c.data(s, "test", end_stream: true))
        s
      }]
    ]
  end

  def test_each_rfc_9113_case_gets_its_error_within_a_second_over_tls_h2c_and_upgrade_and_never_reaches_the_app
    failures = []
    served = []
    slowest = [0.0, nil]
    %i[tls h2c upgrade].each do |transport|
      cases.each_with_index do |(section, kind, code, preface, send), index|
        id = "#{transport}-#{index}"
        client = RawH2.new(transport, self, preface: preface)
        begin
          started = monotonic
          reset = send.call(client, id)
          started = monotonic if section.start_with?("5.1 HEADERS on a closed") # the bad frame went out last
          outcome = kind == :stream ? await_reset(client, reset) : await_goaway(client)
          took = monotonic - started
          slowest = [took, "#{transport} #{section}"] if took > slowest[0]
          expected = kind == :stream ? [:rst_stream, code] : [:goaway_and_close, code]
          if outcome != expected
            failures << "#{transport} #{section}: #{outcome.inspect}, expected #{expected.inspect}"
          elsif took > ERROR_WITHIN
            failures << "#{transport} #{section}: the error took #{format('%.3f', took)} s"
          end
          next_client = kind == :stream ? client : RawH2.new(transport, self)
          if serves?(next_client, "#{id}-after")
            served << "#{id}-after"
          else
            failures << "#{transport} #{section}: the next #{kind == :stream ? 'stream' : 'connection'} was not served"
          end
          next_client.close unless next_client.equal?(client)
        ensure
          client.close
        end
      end
    end
    diag("slowest error: #{format('%.1f', slowest[0] * 1000)} ms (#{slowest[1]})")
    assert_empty failures, with_log(@server, failures.join("\n"))

    calls = File.exist?(@calls) ? File.readlines(@calls, chomp: true).map { |line| line.split[1] } : []
    assert_empty calls.grep(/-bad\z/), "the app was called with a bad request"
    assert_equal served.sort, calls.grep(/-after\z/).sort, "every stream or connection after a case was served by the app"
  end

  # h2spec's invalid preface on the shared cleartext port: a first line that names no HTTP version is
  # neither HTTP/1.x nor HTTP/2, so the connection is closed with nothing written (RFC 9113 section 3.4
  # lets the GOAWAY be omitted; an HTTP/1.1 400 would be read as a frame header by an h2 client).
  def test_a_cleartext_first_line_naming_no_http_version_is_closed_unanswered_within_a_second
    socket = TCPSocket.new("127.0.0.1", port)
    started = monotonic
    socket.write("INVALID CONNECTION PREFACE\r\n\r\n")
    answer = +""
    answer << socket.readpartial(4096) while socket.wait_readable(ERROR_WITHIN + 1)
  rescue EOFError, Errno::ECONNRESET
    took = monotonic - started
    assert_equal "", answer, "no HTTP/1.1 response to a line that is not HTTP/1.x"
    assert_operator took, :<=, ERROR_WITHIN, "closed within a second"
    client = RawH2.new(:h2c, self)
    assert serves?(client, "after-invalid-line"), "the next connection is served"
    client.close
  else
    flunk "the connection stayed open; it sent #{answer.inspect}"
  ensure
    socket&.close
  end

  private

  # [:rst_stream, code] of the first RST_STREAM on +stream+, or what came instead within ERROR_WITHIN + 1 s.
  def await_reset(client, stream)
    deadline = monotonic + ERROR_WITHIN + 1
    loop do
      f = client.read_frame(deadline)
      return [:nothing] if f.nil?
      return [:eof] if f == :eof
      return [:rst_stream, f.payload.unpack1("N")] if f.type == RawH2::RST_STREAM && f.stream == stream
      return [:goaway, f.payload.byteslice(4, 4).unpack1("N")] if f.type == RawH2::GOAWAY
    end
  end

  # [:goaway_and_close, code] once a GOAWAY came and the connection closed, or what came instead.
  def await_goaway(client)
    deadline = monotonic + ERROR_WITHIN + 1
    code = nil
    loop do
      f = client.read_frame(deadline)
      return code ? [:goaway_without_close, code] : [:nothing] if f.nil?
      return code ? [:goaway_and_close, code] : [:eof_without_goaway] if f == :eof
      return [:rst_stream, f.stream, f.payload.unpack1("N")] if f.type == RawH2::RST_STREAM && code.nil?
      code ||= f.payload.byteslice(4, 4).unpack1("N") if f.type == RawH2::GOAWAY
    end
  end

  # A GET of / on a new stream of +client+ is answered "hello".
  def serves?(client, id)
    stream = client.new_stream
    client.write(client.request(stream, "GET", target(id), end_stream: true))
    deadline = monotonic + 10
    loop do
      f = client.read_frame(deadline)
      return false unless f.is_a?(RawH2::Frame)
      return true if f.type == RawH2::DATA && f.stream == stream && f.payload.include?("hello")
    end
  end
end
