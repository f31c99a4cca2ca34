# A chat with rooms over WebTransport, with a WebSocket fallback, as one Rack app: both kinds of session are
# held by the host (docs/WEBTRANSPORT.md, docs/WEBSOCKETS.md) and their events arrive as requests to the
# same route, so a WebTransport client and a WebSocket client chat in one room through the same broadcast.
require "digest"
require "json"
require "openssl"
require "rack"
require "uri"
require "puma_plus/web_socket"

class WebTransportChat
  PAGE = File.join(__dir__, "public", "index.html")

  # +webtransport_url+: the HTTP/3 listener's origin (e.g. https://127.0.0.1:8443), nil for WebSockets only
  # (unless the page is given one); +certificate+: the path of its PEM certificate, whose SHA-256 the page
  # hands to serverCertificateHashes.
  def initialize(webtransport_url: nil, certificate: nil)
    @config = { webtransport: webtransport_url }
    if certificate
      der = OpenSSL::X509::Certificate.new(File.read(certificate)).to_der
      @config[:certificate_sha256] = Digest::SHA256.base64digest(der)
    end
  end

  def call(env)
    request = Rack::Request.new(env)
    case request.path_info
    when "/" then [200, { "content-type" => "text/html; charset=utf-8" }, [File.read(PAGE)]]
    when "/config" then [200, { "content-type" => "application/json" }, [JSON.generate(@config)]]
    when "/chat" then chat(env, request)
    else [404, { "content-type" => "text/plain" }, ["not found\n"]]
    end
  end

  private

  # /chat?room=lobby&name=alice: the upgrade (a WebSocket handshake, or a WebTransport CONNECT: then
  # SERVER_PROTOCOL is HTTP/3), then every event of the session.
  def chat(env, request)
    room = "room:#{request.params['room'] || 'lobby'}"
    name = request.params["name"].to_s
    ws = env["puma_plus.websocket"]
    case env["puma_plus.websocket.event"]
    when "upgrade"
      return [400, {}, ["a name is required\n"]] if name.empty? || name.bytesize > 40

      origin = env["HTTP_ORIGIN"]
      return [403, {}, ["cross-site session refused\n"]] if origin && URI(origin).host != request.host

      return PumaPlus::WebSocket.accept(:sticky)
    when "open"
      ws.join(room)
      ws.broadcast(room, "#{name} joined (#{transport(env)})")
    when "message"
      ws.broadcast(room, "#{name}: #{request.body.read.force_encoding(Encoding::UTF_8)}")
    when "close"
      ws.broadcast(room, "#{name} left")
    else
      return [426, { "upgrade" => "websocket" }, ["this endpoint speaks WebSocket and WebTransport\n"]]
    end
    [200, {}, []] # an event's response is discarded
  end

  def transport(env)
    env["SERVER_PROTOCOL"] == "HTTP/3" ? "webtransport" : "websocket"
  end
end
