# A streamed HTML response through ActionController::Live: each part is written (and leaves for the
# client) while the action is still running, the way a long report or a progress page streams.
class StreamsController < ApplicationController
  include ActionController::Live

  def show
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    # Rack 2.2's Rack::ETag (in Rails 6.1's default stack) reads the whole body to digest it unless the
    # response already has an ETag or a Last-Modified: without this header the stream would be buffered.
    response.headers["Last-Modified"] = Time.now.httpdate
    response.stream.write("<!doctype html>\n<title>stream</title>\n<ol>\n")
    5.times do |i|
      response.stream.write("<li>part #{i}</li>\n")
      sleep 0.1
    end
    response.stream.write("</ol>\n")
  ensure
    response.stream.close
  end
end
