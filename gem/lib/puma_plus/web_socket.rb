# frozen_string_literal: true

# env["puma_plus.websocket"]: the app's handle on the WebSocket connections and WebTransport sessions the host
# holds (docs/WEBSOCKETS.md, docs/WEBTRANSPORT.md). One per worker link (slot); each call writes one WS_COMMAND frame on the link of the
# request that runs, which the host applies before that request's response ends. Sits beside the app in the
# request path (worker slot → app), like rack.early_hints.

require_relative "wire"

module PumaPlus
  class WebSocket
    # The response header with which the app accepts an upgrade (its value: "sticky" or "flexible").
    ACCEPT_HEADER = "puma-plus-websocket"
    ROUTINGS = %i[sticky flexible].freeze
    # env keys the host sets on WebSocket events.
    ID = "puma_plus.websocket.id"
    EVENT = "puma_plus.websocket.event"
    TYPE = "puma_plus.websocket.type"
    CLOSE_CODE = "puma_plus.websocket.close_code"
    STREAM_ID = "puma_plus.websocket.stream_id"
    # The protocol version from which the host takes SEND_DATAGRAM and SEND_STREAM.
    STREAMS_VERSION = 7
    # The bytes a command's frame carries before its channel and data.
    FIXED_SIZE = Wire::WebSocketCommand::FIXED_SIZE
    UTF_8 = Encoding::UTF_8
    US_ASCII = Encoding::US_ASCII

    # The response accepting an upgrade: routing :sticky (every event to the worker process that accepted)
    # or :flexible (any free slot); +protocol+ the subprotocol chosen from Sec-WebSocket-Protocol, if any.
    def self.accept(routing = :sticky, protocol: nil)
      raise ArgumentError, "routing must be :sticky or :flexible, not #{routing.inspect}" unless ROUTINGS.include?(routing)

      headers = { ACCEPT_HEADER => routing.to_s }
      headers["sec-websocket-protocol"] = protocol if protocol
      [101, headers, []]
    end

    # +io+: the worker link's socket; +host_version+: the protocol version the host's WELCOME named.
    def initialize(io, host_version = Wire::VERSION)
      @io = io
      @streams = host_version >= STREAMS_VERSION
      @id = nil
      @stream_id = nil
      @web_transport = false
      @running = false
    end

    # The current event's connection id (an Integer), nil in a request that is not an event.
    attr_reader :id

    # The QUIC id of the stream that carried the current message (an Integer) when it is a WebTransport
    # stream message (puma_plus.websocket.type "stream"), else nil.
    attr_reader :stream_id

    # The link's request began (worker/link.rb): commands may go from now on.
    def start(env)
      id = env[ID]
      @id = id && Integer(id, 10)
      stream = env[STREAM_ID]
      @stream_id = stream && Integer(stream, 10)
      @web_transport = !id.nil? && env["SERVER_PROTOCOL"] == "HTTP/3"
      @running = true
    end

    # The link's request ended: its response is out, so a command would come too late for it.
    def finish
      @running = false
      @id = nil
      @stream_id = nil
      @web_transport = false
    end

    # One message to connection +to+ (this event's by default): text for a UTF-8 or ASCII String, binary for
    # any other encoding. Raises ArgumentError for a text message that is not valid UTF-8 or one that does
    # not fit a frame.
    def send_message(data, to: id)
      binary = binary?(data)
      command(binary ? Wire::WebSocketCommand::SEND_BINARY : Wire::WebSocketCommand::SEND_TEXT, connection(to), "",
              data)
    end

    # One message to every connection in +channel+, text or binary as for send_message.
    def broadcast(channel, data)
      binary = binary?(data)
      command(binary ? Wire::WebSocketCommand::BROADCAST_BINARY : Wire::WebSocketCommand::BROADCAST_TEXT, 0,
              channel_name(channel), data)
    end

    # Connection +connection+ (this event's by default) joins +channel+.
    def join(channel, connection = id)
      command(Wire::WebSocketCommand::JOIN, connection(connection), channel_name(channel), "")
    end

    # Connection +connection+ (this event's by default) leaves +channel+.
    def leave(channel, connection = id)
      command(Wire::WebSocketCommand::LEAVE, connection(connection), channel_name(channel), "")
    end

    # The closing handshake for +connection+ with +code+ (1000 or 3000-4999) and +reason+ (at most 123
    # bytes); the close event follows.
    def close(connection = id, code = 1000, reason = "")
      command(Wire::WebSocketCommand::CLOSE, connection(connection), "", reason.to_s, code)
    end

    # One datagram to WebTransport session +to+ (this event's by default): it may be lost, and is dropped when
    # it does not fit one QUIC packet (about 1200 bytes are safe). Raises ArgumentError for this event's
    # connection when it is a WebSocket (datagrams and streams are WebTransport's); a WebSocket named by
    # another id is sent nothing and the host logs a warning.
    def send_datagram(data, to: id)
      transport_command(Wire::WebSocketCommand::SEND_DATAGRAM, to, 0, String(data).b)
    end

    # Bytes on stream +stream+ of WebTransport session +to+: a client's bidirectional stream (by default the
    # one whose message this event is: its answer) or a stream opened with open_stream. With +finish+ the
    # stream's sending side ends after them. Refused as send_datagram is.
    def send_stream(data, stream: stream_id, to: id, finish: false)
      stream = stream_name(stream)
      transport_command(Wire::WebSocketCommand::SEND_STREAM, to, finish ? Wire::WebSocketCommand::FIN : 0,
                        [stream].pack(Wire::WebSocketCommand::STREAM_ID_FORMAT) << String(data).b)
    end

    # Opens a new unidirectional stream of the server's to WebTransport session +to+ and returns its name
    # (an Integer from 2^62 on, random, so workers of one session never pick the same) for send_stream and
    # finish_stream.
    def open_stream(to: id)
      stream = Wire::WebSocketCommand::FIRST_APP_STREAM | (Random.urandom(8).unpack1("Q>") >> 2)
      send_stream("", stream: stream, to: to)
      stream
    end

    # Ends the sending side of stream +stream+ (this message's by default) of session +to+ (FIN).
    def finish_stream(stream = stream_id, to: id)
      send_stream("", stream: stream, to: to, finish: true)
    end

    private

    def transport_command(op, to, code, data)
      connection = connection(to)
      if connection == @id && !@web_transport
        raise ArgumentError, "connection #{connection} is a WebSocket: datagrams and streams are WebTransport's"
      end
      raise IOError, "the host speaks no WebTransport datagrams or streams (protocol version 7)" unless @streams

      command(op, connection, "", data, code)
    end

    def stream_name(stream)
      raise ArgumentError, "no stream: this event is no stream message; name one with stream:" if stream.nil?

      stream = Integer(stream)
      raise ArgumentError, "stream #{stream}, 0 to 2^63-1 required" unless stream.between?(0, (1 << 63) - 1)

      stream
    end

    def command(op, connection, channel, data, code = 0)
      raise IOError, "puma_plus.websocket is usable only while its request runs" unless @running

      frame = Wire::WebSocketCommand.new(op: op, code: code, connection: connection, channel: channel, data: data.b)
      problem = frame.problem
      raise ArgumentError, problem if problem
      if FIXED_SIZE + channel.bytesize + data.bytesize > Wire::Frame::MAX_PAYLOAD
        raise ArgumentError, "a message of #{data.bytesize} bytes does not fit one frame"
      end

      @io.write(frame.encode)
      nil
    end

    def binary?(data)
      raise ArgumentError, "a message is a String, not #{data.class}" unless data.is_a?(String)

      encoding = data.encoding
      return true unless encoding == UTF_8 || encoding == US_ASCII
      raise ArgumentError, "a text message must be valid UTF-8" unless data.valid_encoding?

      false
    end

    def connection(value)
      raise ArgumentError, "no connection: this request is not a WebSocket event" if value.nil?

      Integer(value)
    end

    def channel_name(channel)
      name = channel.to_s.b
      raise ArgumentError, "a channel name is 1 to 65535 bytes" if name.empty? || name.bytesize > 0xFFFF

      name
    end
  end
end
