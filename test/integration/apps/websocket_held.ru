# WebSockets held by the host (docs/WEBSOCKETS.md) for the integration tests: accepts with the routing the
# query names (?routing=flexible, else sticky) after holding its slot for ?hold_ms=N if given, puts every connection in channel "all", answers a message
# with "<message> <worker pid>", a "protocol" message with the SERVER_PROTOCOL its events carry, a "broadcast" message with "to all" to every connection, and a "flood"
# message with 200 messages of 64 KiB to its sender; a close event is logged as "websocket ID closed CODE".
run lambda { |env|
  ws = env["puma_plus.websocket"]
  case env["puma_plus.websocket.event"]
  when "upgrade"
    hold_ms = env["QUERY_STRING"][/hold_ms=(\d+)/, 1]
    sleep(Integer(hold_ms) / 1000.0) if hold_ms
    return PumaPlus::WebSocket.accept(env["QUERY_STRING"].include?("routing=flexible") ? :flexible : :sticky)
  when "open"
    ws.join("all")
  when "message"
    data = env["rack.input"].read
    if data == "broadcast"
      ws.broadcast("all", "to all")
    elsif data == "protocol"
      ws.send_message(env["SERVER_PROTOCOL"].dup.force_encoding(Encoding::UTF_8)) # env strings are binary
    elsif data == "flood"
      200.times { ws.send_message("x" * 65_536) }
    else
      ws.send_message("#{data.force_encoding(Encoding::UTF_8)} #{Process.pid}")
    end
  when "close"
    env["rack.errors"].puts("websocket #{env['puma_plus.websocket.id']} closed #{env['puma_plus.websocket.close_code']}")
  end
  [200, { "content-type" => "text/plain" }, ["ok\n"]]
}
