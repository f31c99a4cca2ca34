# A streamed HTML response through ActionController::Live: each part is written (and leaves for the
# client) while the action is still running, the way a long report or a progress page streams. (Rack 3.1's
# Rack::ETag digests only bodies that respond to to_ary, so unlike on Rails 6.1 no Last-Modified is needed
# to keep it from buffering the stream.)
class StreamsController < ApplicationController
  include ActionController::Live

  def show
    response.headers["Content-Type"] = "text/html; charset=utf-8"
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
