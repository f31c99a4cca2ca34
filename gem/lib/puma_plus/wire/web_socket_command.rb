# frozen_string_literal: true

# WS_COMMAND (0x30), worker → host, protocol version 4: what the app asks the host to do with the WebSocket
# connections the host holds (send, broadcast, join, leave, close; for a WebTransport session, send a datagram
# or on a stream), written on the link of the request that runs (docs/PROTOCOL.md, "WebSocket commands";
# docs/WEBSOCKETS.md, docs/WEBTRANSPORT.md).
#
# u8 op | u8 reserved | u16 code | u64 connection | u16 channel length | channel | data

require_relative "payload"

module PumaPlus
  module Wire
    class WebSocketCommand < Payload.struct(FrameType::WS_COMMAND, :op, :code, :connection, :channel, :data)
      FORMAT = "CCnQ>n"
      FIXED_SIZE = 14
      SEND_TEXT = 1
      SEND_BINARY = 2
      BROADCAST_TEXT = 3
      BROADCAST_BINARY = 4
      JOIN = 5
      LEAVE = 6
      CLOSE = 7
      SEND_DATAGRAM = 8
      # data: u64 stream id, then the bytes; code FIN ends the stream's sending side after them.
      SEND_STREAM = 9
      FIN = 1
      # Stream ids from here on are names the app gives streams of the server's it opens; below, QUIC ids.
      FIRST_APP_STREAM = 1 << 62
      STREAM_ID_FORMAT = "Q>"
      # RFC 6455 §5.5: a control frame carries at most 125 bytes, two of them the code.
      MAX_REASON = 123
      CONNECTION_LIMIT = 1 << 63

      # Parses a WS_COMMAND payload; raises ProtocolError when it breaks the row of docs/PROTOCOL.md's
      # malformed payloads.
      def self.decode(payload)
        Payload.at_least(payload, FIXED_SIZE)
        op, _reserved, code, connection, channel_length = payload.unpack(FORMAT)
        raise ProtocolError, "unknown op #{op}" unless op.between?(SEND_TEXT, SEND_STREAM)
        if channel_length > payload.bytesize - FIXED_SIZE
          raise ProtocolError, "channel length #{channel_length} beyond the payload"
        end

        command = new(op: op, code: code, connection: connection,
                      channel: payload.byteslice(FIXED_SIZE, channel_length),
                      data: payload.byteslice((FIXED_SIZE + channel_length)..))
        problem = command.problem
        raise ProtocolError, problem if problem

        command
      end

      # What makes this command malformed, or nil when it is well-formed (the host rejects exactly these).
      def problem
        broadcast = op == BROADCAST_TEXT || op == BROADCAST_BINARY
        names_channel = broadcast || op == JOIN || op == LEAVE
        if broadcast ? connection != 0 : !(1...CONNECTION_LIMIT).cover?(connection)
          return broadcast ? "a broadcast names connection #{connection}" : "connection #{connection}, 1 to 2^63-1 required"
        end
        return names_channel ? "no channel" : "a channel for op #{op}" if names_channel == channel.empty?
        if op == SEND_STREAM
          return "code #{code}, 0 or 1 (FIN) required for SEND_STREAM" unless code == 0 || code == FIN
          return "a SEND_STREAM of #{data.bytesize} data bytes, at least 8 (the stream id)" if data.bytesize < 8

          stream = data.unpack1(STREAM_ID_FORMAT)
          return "stream #{stream}, 0 to 2^63-1 required" if stream >= CONNECTION_LIMIT
        elsif op == CLOSE ? code != 1000 && !code.between?(3000, 4999) : code != 0
          return "code #{code}#{op == CLOSE ? ', 1000 or 3000-4999 required' : ' outside CLOSE'}"
        end
        return "data for op #{op}" if (op == JOIN || op == LEAVE) && !data.empty?
        return "a close reason of #{data.bytesize} bytes, at most #{MAX_REASON}" if op == CLOSE && data.bytesize > MAX_REASON

        nil
      end

      def payload
        [op, 0, code, connection, channel.bytesize].pack(FORMAT) << channel.b << data.b
      end
    end
  end
end
