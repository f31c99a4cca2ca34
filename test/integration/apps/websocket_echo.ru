# A WebSocket echo server written against Rack's full hijack only (no WebSocket library): /ws answers the
# RFC 6455 opening handshake itself on the hijacked IO, then echoes text and binary messages, answers pings
# and the closing handshake. "/" answers "ok" so a test can show the other slot still serves meanwhile;
# "/hijack-then-raise" raises after taking the connection.
# The app runs inside Rack::Lint; a violation is reported in the response or on the server's log.
require "base64"
require "digest/sha1"
require "rack"
require "rack/lint"
require "uri" # Rack 2.2's Lint uses URI without requiring it

WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

# Reads exactly +size+ bytes or raises EOFError.
def read_exactly(io, size)
  data = io.read(size)
  raise EOFError, "connection closed" if data.nil? || data.bytesize < size

  data
end

# One frame from the client: [opcode, payload]. Client frames are masked (RFC 6455 5.3); fragmented
# messages are not used by the test client and not supported here.
def read_frame(io)
  first, second = read_exactly(io, 2).bytes
  length = second & 0x7f
  length = read_exactly(io, 2).unpack1("n") if length == 126
  length = read_exactly(io, 8).unpack1("Q>") if length == 127
  mask = (second & 0x80).zero? ? nil : read_exactly(io, 4).bytes
  payload = read_exactly(io, length).bytes
  payload = payload.each_with_index.map { |byte, i| byte ^ mask[i % 4] } if mask
  [first & 0x0f, payload.pack("C*")]
end

# One unmasked, final frame to the client.
def write_frame(io, opcode, payload)
  header = [0x80 | opcode].pack("C")
  size = payload.bytesize
  header << if size < 126 then [size].pack("C")
            elsif size < 65_536 then [126, size].pack("Cn")
            else [127, size].pack("CQ>")
            end
  io.write(header + payload.b)
end

app = lambda do |env|
  case env["PATH_INFO"]
  when "/"
    [200, { "content-type" => "text/plain" }, ["ok\n"]]
  when "/hijack-then-raise" # the app fails after taking the connection: the client sees it closed
    io = env["rack.hijack"].call
    io.close
    raise "failed after hijacking"
  when "/ws"
    key = env["HTTP_SEC_WEBSOCKET_KEY"]
    unless env["HTTP_UPGRADE"].to_s.casecmp?("websocket") && key && env["rack.hijack?"]
      return [400, { "content-type" => "text/plain" }, ["websocket upgrade expected\n"]]
    end

    io = env["rack.hijack"].call
    accept = Base64.strict_encode64(Digest::SHA1.digest(key + WEBSOCKET_GUID))
    io.write("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n" \
             "sec-websocket-accept: #{accept}\r\n\r\n")
    begin
      loop do
        opcode, payload = read_frame(io)
        case opcode
        when 0x1, 0x2 then write_frame(io, opcode, payload) # text, binary: echo
        when 0x9 then write_frame(io, 0xA, payload) # ping: pong
        when 0x8 # close: answer with the same status code, then close
          write_frame(io, 0x8, payload.byteslice(0, 2) || "")
          break
        end
      end
    rescue EOFError, Errno::ECONNRESET, Errno::EPIPE
      nil
    ensure
      io.close unless io.closed?
    end
    [200, {}, []] # ignored after a full hijack
  else
    [404, { "content-type" => "text/plain" }, ["not found\n"]]
  end
end

run Rack::Lint.new(app)
