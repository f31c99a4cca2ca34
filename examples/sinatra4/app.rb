# The Sinatra example (examples/sinatra) on Sinatra 4.1 and Rack 3.1 (both from Debian trixie, fetched by
# script/rack3), which the integration tests serve through puma-plus: its page with a form and its POST and
# its parameters echoed as JSON, and here a streamed response, early hints, and the versions it runs on.
require_relative "../sinatra/app"

class Sinatra4Example < SinatraExample
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
    def page_title
      "puma-plus + Sinatra 4"
    end

    def served_by
      "Sinatra #{Sinatra::VERSION} on Rack #{Rack.release}"
    end
  end
end
