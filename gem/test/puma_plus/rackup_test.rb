# frozen_string_literal: true

# Loading the app from a rackup file, whichever shape Rack::Builder.parse_file returns.

require "test_helper"
require "puma_plus/rackup"

class PumaPlus::RackupTest < PumaPlus::TestCase
  def with_rackup(source)
    Dir.mktmpdir("puma-plus-rackup") do |dir|
      path = File.join(dir, "config.ru")
      File.write(path, source)
      yield path
    end
  end

  def test_loads_the_app_from_a_rackup_file
    with_rackup("use Rack::ContentLength\nrun ->(_) { [200, {}, ['hi']] }\n") do |path|
      app = PumaPlus::Rackup.load(path)
      status, headers, = app.call("REQUEST_METHOD" => "GET")
      assert_equal [200, "2"], [status, headers["Content-Length"] || headers["content-length"]]
    end
  end

  # Rack 3 is not installed here, so its return shape is stood in for.
  def test_accepts_both_the_rack2_pair_and_the_rack3_app
    app = ->(_) { [200, {}, []] }
    Rack::Builder.stub(:parse_file, ->(_path) { [app, {}] }) { assert_same app, PumaPlus::Rackup.load("x.ru") }
    Rack::Builder.stub(:parse_file, ->(_path) { app }) { assert_same app, PumaPlus::Rackup.load("x.ru") }
  end

  def test_errors_in_the_rackup_file_propagate_with_its_line
    with_rackup("\nraise 'no db'\n") do |path|
      error = assert_raises(RuntimeError) { PumaPlus::Rackup.load(path) }
      assert_match(/config\.ru:2/, error.backtrace.join("\n"))
    end
  end
end
