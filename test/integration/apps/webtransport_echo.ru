# WebTransport sessions held by the host (docs/WEBTRANSPORT.md) for the integration tests: "/" is a blank
# page the test drives over DevTools; an upgrade is accepted only with ?token=let-me-in in its query (the
# same env a WebSocket upgrade has, so the same check); every message is answered with "echo:<message>";
# each event is logged as "webtransport ID EVENT ...", a close with its code.
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
    env["rack.errors"].puts("webtransport #{id} message #{data.inspect}")
    ws.send_message("echo:#{data}".b)
  else
    env["rack.errors"].puts("webtransport #{id} #{event} #{env['puma_plus.websocket.close_code']}")
  end
  [200, { "content-type" => "text/plain" }, ["ok\n"]]
}
