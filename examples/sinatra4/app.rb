# A modular Sinatra 4.1 app on Rack 3.1 (both from Debian trixie, fetched by script/rack3) that the
# integration tests serve through puma-plus: an HTML page with a form and its POST, parameters echoed as
# JSON, a streamed response, early hints, and the versions it runs on.
require "sinatra/base"
require "json"

class Sinatra4Example < Sinatra::Base
  get "/" do
    <<~HTML
      <!doctype html>
      <title>puma-plus + Sinatra 4</title>
      <h1>Hello from Sinatra #{Sinatra::VERSION} on Rack #{Rack.release}</h1>
      <form method="post" action="/greetings">
        <label>Name <input name="name"></label>
        <button>Greet</button>
      </form>
    HTML
  end

  post "/greetings" do
    name = params["name"].to_s.strip
    halt 422, "name is required\n" if name.empty?
    status 201
    content_type "text/plain"
    "Hello, #{name}!\n"
  end

  get("/params/?:segment?") { params_as_json }
  post("/params/?:segment?") { params_as_json }

  get "/versions" do
    content_type "application/json"
    JSON.generate("sinatra" => Sinatra::VERSION, "rack" => Rack.release)
  end

  # Sinatra's stream helper: each part leaves as soon as it is written.
  get "/stream" do
    content_type "text/plain"
    stream do |out|
      3.times do |i|
        out << "part #{i}\n"
        sleep 0.2
      end
    end
  end

  get "/hints" do
    env["rack.early_hints"]&.call("link" => "</app.css>; rel=preload; as=style")
    "hinted\n"
  end

  helpers do
    def params_as_json
      content_type "application/json"
      JSON.generate(params.to_h.merge("request_method" => request.request_method))
    end
  end
end
