# frozen_string_literal: true

# env["puma_plus.websocket"]: the app's handle on the WebSocket connections the host holds
# (docs/WEBSOCKETS.md). One per worker link (slot); each call writes one WS_COMMAND frame on the link of the
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

    # +io+: the worker link's socket.
    def initialize(io)
      @io = io
      @id = nil
      @running = false
    end

    # The current event's connection id (an Integer), nil in a request that is not an event.
    attr_reader :id

    # The link's request began (worker/link.rb): commands may go from now on.
    def start(env)
      id = env[ID]
      @id = id && Integer(id, 10)
      @running = true
    end

    # The link's request ended: its response is out, so a command would come too late for it.
    def finish
      @running = false
      @id = nil
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

    private

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
