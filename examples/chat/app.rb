# A chat with rooms on WebSockets the host holds (docs/WEBSOCKETS.md), as a modular Sinatra app (Debian's
# ruby-sinatra): the page, the WebSocket endpoint whose events arrive as requests to the same route, and an
# ordinary POST that broadcasts to a room. No thread waits on a connection between messages.
require "sinatra/base"
require "uri"
require "puma_plus/web_socket"

class ChatExample < Sinatra::Base
  set :public_folder, File.join(__dir__, "public")

  get "/" do
    send_file File.join(settings.public_folder, "index.html")
  end

  # GET /chat?room=lobby&name=alice: the handshake, then every event of the connection.
  get "/chat" do
    room = "room:#{params['room'] || 'lobby'}"
    name = params["name"].to_s
    ws = env["puma_plus.websocket"]
    case env["puma_plus.websocket.event"]
    when "upgrade"
      halt 400, "a name is required\n" if name.empty? || name.bytesize > 40
      # A browser sends its page's origin: refuse pages of other sites (cross-site WebSocket hijacking).
      origin = env["HTTP_ORIGIN"]
      halt 403, "cross-site WebSocket refused\n" if origin && URI(origin).host != request.host
      # sticky: every event of this connection runs in this worker process.
      halt(*PumaPlus::WebSocket.accept(:sticky))
    when "open"
      ws.join(room)
      ws.broadcast(room, "#{name} joined")
    when "message"
      text = request.body.read.force_encoding(Encoding::UTF_8)
      if text == "/whoami"
        ws.send_message("you are #{name} (connection #{ws.id}, worker pid #{Process.pid})")
      else
        ws.broadcast(room, "#{name}: #{text}")
      end
    when "close"
      ws.broadcast(room, "#{name} left")
    else
      halt 426, { "upgrade" => "websocket" }, "this endpoint speaks WebSocket\n"
    end
    "" # an event's response is discarded
  end

  # An ordinary request can talk to held connections too.
  post "/announce" do
    env["puma_plus.websocket"].broadcast("room:#{params['room'] || 'lobby'}", "announcement: #{request.body.read}")
    204
  end
end
