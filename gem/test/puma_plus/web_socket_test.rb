# frozen_string_literal: true

# Claims about env["puma_plus.websocket"] (docs/WEBSOCKETS.md): each call is one WS_COMMAND frame on the
# link, text or binary by the String's encoding, only while the request runs, and the accept response; and
# the API's names: WEBSOCKETS.md's API table and the class agree, and none is a method every object has.

require "test_helper"
require "stringio"

class PumaPlus::WebSocketTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  Command = Wire::WebSocketCommand
  API_DOC = File.read(File.expand_path("../../../docs/WEBSOCKETS.md", __dir__))
  # What the worker's link calls on the object it puts in the env, around each request (worker/link.rb).
  LINK_LIFECYCLE = %i[start finish].freeze

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

  def test_datagram_and_stream_calls_are_commands_naming_this_messages_stream_by_default
    @ws.start("puma_plus.websocket.id" => "42", "SERVER_PROTOCOL" => "HTTP/3", "puma_plus.websocket.stream_id" => "4")
    assert_equal 4, @ws.stream_id
    @ws.send_datagram("pong")
    @ws.send_stream("answer")
    @ws.finish_stream
    opened = @ws.open_stream(to: 7)
    @ws.send_stream("news", stream: opened, to: 7, finish: true)
    assert_operator opened, :>=, Command::FIRST_APP_STREAM
    stream = ->(id, bytes) { [id].pack("Q>") + bytes.b }
    assert_equal [[Command::SEND_DATAGRAM, 0, 42, "pong"], [Command::SEND_STREAM, 0, 42, stream[4, "answer"]],
                  [Command::SEND_STREAM, Command::FIN, 42, stream[4, ""]], [Command::SEND_STREAM, 0, 7, stream[opened, ""]],
                  [Command::SEND_STREAM, Command::FIN, 7, stream[opened, "news"]]],
                 commands.map { |c| [c.op, c.code, c.connection, c.data] }
  end

  def test_datagram_and_stream_calls_on_a_websocket_event_raise_for_its_own_connection
    @ws.start("puma_plus.websocket.id" => "42", "SERVER_PROTOCOL" => "HTTP/1.1")
    error = assert_raises(ArgumentError) { @ws.send_datagram("pong") }
    assert_match(/connection 42 is a WebSocket/, error.message)
    assert_raises(ArgumentError) { @ws.send_stream("answer", stream: 4) }
    assert_raises(ArgumentError) { @ws.send_stream("answer") } # no stream: this event is no stream message
    assert_empty @io.string
  end

  def test_datagram_and_stream_calls_to_a_host_before_version_7_raise
    ws = PumaPlus::WebSocket.new(@io, 6)
    ws.start("puma_plus.websocket.id" => "42", "SERVER_PROTOCOL" => "HTTP/3")
    assert_raises(IOError) { ws.send_datagram("pong") }
    assert_empty @io.string
  end

  def test_accept_is_a_101_naming_the_routing_and_the_subprotocol
    assert_equal [101, { "puma-plus-websocket" => "flexible", "sec-websocket-protocol" => "chat" }, []],
                 PumaPlus::WebSocket.accept(:flexible, protocol: "chat")
    assert_equal "sticky", PumaPlus::WebSocket.accept[1]["puma-plus-websocket"]
    assert_raises(ArgumentError) { PumaPlus::WebSocket.accept(:roundrobin) }
  end

  # A method named like one of Object's (Kernel's and BasicObject's included, public or private) hides it:
  # `ws.send(data)` would be Object#send, calling the method its data names.
  def test_no_method_of_the_api_is_named_like_one_every_ruby_object_has
    shadowing = PumaPlus::WebSocket.public_instance_methods(false) &
                (Object.public_instance_methods + Object.private_instance_methods)
    assert_empty shadowing, "PumaPlus::WebSocket hides Object's #{shadowing.join(', ')}"
    class_shadowing = PumaPlus::WebSocket.singleton_methods(false) &
                      (Class.public_instance_methods + Class.private_instance_methods)
    assert_empty class_shadowing, "PumaPlus::WebSocket hides Class's #{class_shadowing.join(', ')}"
  end

  def test_every_call_in_the_api_table_of_websockets_md_exists_with_its_documented_parameters
    documented_calls.each do |call, method, parameters|
      assert_includes [PumaPlus::WebSocket, PumaPlus::WebSocket.singleton_class], method.owner,
                      "#{call}: not PumaPlus::WebSocket's own method"
      assert_equal parameters, method.parameters, "#{call}: the method takes #{method.parameters.inspect}"
    end
  end

  def test_every_public_method_of_the_api_is_in_the_api_table_of_websockets_md_or_is_the_links
    documented = documented_calls.map { |_call, method, _parameters| method.name }
    undocumented = PumaPlus::WebSocket.public_instance_methods(false) + PumaPlus::WebSocket.singleton_methods(false) -
                   documented - LINK_LIFECYCLE
    assert_empty undocumented, "public but not in WEBSOCKETS.md's API table"
  end

  # The calls in the first column of WEBSOCKETS.md's API table, each as [its text, the method it names (a
  # Method or UnboundMethod), the parameters it shows in Method#parameters' form]. A name the class does not
  # answer fails the test.
  def documented_calls
    section = API_DOC[/^## The API.*?(?=^## )/m] or flunk("WEBSOCKETS.md has no section \"The API\"")
    cells = section.lines.grep(/\A\| `/).map { |row| row.split("|")[1] }
    refute_empty cells, "WEBSOCKETS.md's API section has no table of calls"
    cells.flat_map { |cell| cell.scan(/`([^`]+)`/).flatten }.map do |call|
      parts = call.match(/\A(ws|PumaPlus::WebSocket)\.(\w+)(?:\((.*)\))?\z/) or flunk("not a call: #{call}")
      method = begin
        parts[1] == "ws" ? PumaPlus::WebSocket.instance_method(parts[2]) : PumaPlus::WebSocket.method(parts[2])
      rescue NameError
        flunk("#{call}: PumaPlus::WebSocket has no #{parts[2]}")
      end
      [call, method, parts[3].to_s.split(",").map { |argument| parameter(argument.strip) }]
    end
  end

  # `to: ws.id` is [:key, :to], `code = 1000` [:opt, :code], `data` [:req, :data].
  def parameter(argument)
    name = argument[/\A\w+/].to_sym
    if argument.match?(/\A\w+:/) then [:key, name]
    elsif argument.include?("=") then [:opt, name]
    else [:req, name]
    end
  end
end
