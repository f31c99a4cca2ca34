# WebTransport sessions held by the host (docs/WEBTRANSPORT.md) for the integration tests: "/" is a blank
# page the test drives over DevTools; an upgrade is accepted only with ?token=let-me-in in its query (the
# same env a WebSocket upgrade has, so the same check); every message is answered with "echo:<message>" the
# way it came: a datagram with a datagram, a bidirectional stream's on that stream (then its end), a
# unidirectional stream's on a stream of the server's the app opens, writes in two parts and finishes; a
# datagram "large:N" is answered with a datagram of N bytes instead (larger than a client takes, for a test
# of the host dropping it); each event is logged as
# "webtransport ID EVENT ...", a message with its type (and stream id) and its data (its size past 100
# bytes), a close with its code.
run lambda { |env|
  ws = env["puma_plus.websocket"]
  event = env["puma_plus.websocket.event"]
  id = env["puma_plus.websocket.id"]
  case event
  when nil
    return [200, { "content-type" => "text/html" }, ["<!doctype html><title>webtransport</title><p id=ready>ready</p>\n"]]
  when "upgrade"
    env["rack.errors"].puts("webtransport upgrade #{env['PATH_INFO']}?#{env['QUERY_STRING']} #{env['SERVER_PROTOCOL']}")
    return [403, { "content-type" => "text/plain" }, ["no token\n"]] unless env["QUERY_STRING"].include?("token=let-me-in")

    return PumaPlus::WebSocket.accept(:sticky)
  when "message"
    data = env["rack.input"].read
    type = env["puma_plus.websocket.type"]
    stream = ws.stream_id
    shown = data.bytesize > 100 ? "#{data.bytesize} bytes" : data.inspect
    env["rack.errors"].puts("webtransport #{id} message #{type}#{stream ? " #{stream}" : ''} #{shown}")
    answer = "echo:#{data}".b
    if type == "datagram" && (size = data[/\Alarge:(\d+)\z/, 1])
      ws.send_datagram("x" * Integer(size))
    elsif type == "datagram"
      ws.send_datagram(answer)
    elsif type == "stream" && stream & 0x2 == 0 # RFC 9000 §2.1: bit 1 clear, a bidirectional stream
      ws.send_stream(answer, finish: true)
    else
      reply = ws.open_stream
      ws.send_stream("echo:", stream: reply)
      ws.send_stream(data, stream: reply)
      ws.finish_stream(reply)
    end
  else
    env["rack.errors"].puts("webtransport #{id} #{event} #{env['puma_plus.websocket.close_code']}")
  end
  [200, { "content-type" => "text/plain" }, ["ok\n"]]
}
