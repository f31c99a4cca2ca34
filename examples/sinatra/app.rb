# A small modular Sinatra 3 app (Debian's ruby-sinatra) that the integration tests serve through puma-plus:
# an HTML page with a form, the form's POST, and an endpoint that echoes the request's parameters as JSON.
# The Sinatra 4 example (examples/sinatra4) is this app with a few routes more.
require "sinatra/base"
require "json"

class SinatraExample < Sinatra::Base
  get "/" do
    <<~HTML
      <!doctype html>
      <title>#{page_title}</title>
      <h1>Hello from #{served_by}</h1>
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

  # Every parameter Sinatra parsed (query string, form body, route captures), as JSON.
  get("/params/?:segment?") { params_as_json }
  post("/params/?:segment?") { params_as_json }

  helpers do
    def page_title
      "puma-plus + Sinatra"
    end

    # Who serves the page, in its heading.
    def served_by
      "Sinatra on puma-plus"
    end

    def params_as_json
      content_type "application/json"
      JSON.generate(params.to_h.merge("request_method" => request.request_method))
    end
  end
end
