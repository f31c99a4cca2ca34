# A streamed HTML response through ActionController::Live: each part is written (and leaves for the
# client) while the action is still running, the way a long report or a progress page streams. The Rails 7.2
# example (examples/rails72) links to this file.
class StreamsController < ApplicationController
  include ActionController::Live

  def show
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    # Rack 2.2's Rack::ETag (in Rails 6.1's default stack) reads the whole body to digest it unless the
    # response already has an ETag or a Last-Modified: without this header the stream would be buffered.
    # Rack 3's digests only bodies that respond to to_ary, so on Rails 7.2 none is needed.
    response.headers["Last-Modified"] = Time.now.httpdate if Rack.release.start_with?("2.")
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
