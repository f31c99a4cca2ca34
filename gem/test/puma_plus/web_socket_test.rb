# frozen_string_literal: true

# Claims about env["puma_plus.websocket"] (docs/WEBSOCKETS.md): each call is one WS_COMMAND frame on the
# link, text or binary by the String's encoding, only while the request runs, and the accept response.

require "test_helper"
require "stringio"

class PumaPlus::WebSocketTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  Command = Wire::WebSocketCommand

  def setup
    @io = StringIO.new("".b)
    @ws = PumaPlus::WebSocket.new(@io)
  end

  def commands
    Wire::Frame.read_all(@io.string).map { |frame| Wire.decode(frame) }
  end

  def test_each_call_is_one_command_frame_naming_the_events_connection_by_default
    @ws.start("puma_plus.websocket.id" => "42")
    @ws.send_message("héllo")
    @ws.send_message("\x00\xff".b, to: 7)
    @ws.join("room")
    @ws.broadcast("room", "all")
    @ws.leave("room", 9)
    @ws.close(42, 4000, "bye")
    assert_equal [[Command::SEND_TEXT, 42, "", "héllo".b], [Command::SEND_BINARY, 7, "", "\x00\xff".b],
                  [Command::JOIN, 42, "room", ""], [Command::BROADCAST_TEXT, 0, "room", "all"],
                  [Command::LEAVE, 9, "room", ""], [Command::CLOSE, 42, "", "bye"]],
                 commands.map { |c| [c.op, c.connection, c.channel, c.data] }
    assert_equal 4000, commands.last.code
  end

  def test_calls_outside_the_request_raise_instead_of_writing_after_the_response
    @ws.start({})
    @ws.finish
    assert_raises(IOError) { @ws.broadcast("room", "late") }
    assert_empty @io.string
  end

  def test_an_ordinary_request_may_broadcast_but_names_no_connection_of_its_own
    @ws.start({})
    assert_nil @ws.id
    @ws.broadcast("room", "from a POST")
    assert_raises(ArgumentError) { @ws.send_message("to nobody") }
    assert_equal 1, commands.size
  end

  def test_invalid_commands_are_refused_before_they_reach_the_link
    @ws.start("puma_plus.websocket.id" => "1")
    assert_raises(ArgumentError) { @ws.send_message("\xff".dup.force_encoding(Encoding::UTF_8)) }
    assert_raises(ArgumentError) { @ws.close(1, 1006) }
    assert_raises(ArgumentError) { @ws.close(1, 1000, "x" * 124) }
    assert_raises(ArgumentError) { @ws.send_message("x" * Wire::Frame::MAX_PAYLOAD) }
    assert_raises(ArgumentError) { @ws.join("") }
    assert_empty @io.string
  end

  def test_accept_is_a_101_naming_the_routing_and_the_subprotocol
    assert_equal [101, { "puma-plus-websocket" => "flexible", "sec-websocket-protocol" => "chat" }, []],
                 PumaPlus::WebSocket.accept(:flexible, protocol: "chat")
    assert_equal "sticky", PumaPlus::WebSocket.accept[1]["puma-plus-websocket"]
    assert_raises(ArgumentError) { PumaPlus::WebSocket.accept(:roundrobin) }
  end
end
