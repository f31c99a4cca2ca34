# frozen_string_literal: true

# ShareableApp: a plain object with #call becomes shareable; anything that cannot be names its path from
# the app and the reason, without freezing an IO on the way; a Rails application gets its own message, and
# a Sinatra app is named where it sits.

require "test_helper"
require "rbconfig"
require "rack"
require "puma_plus/shareable_app"

class PumaPlus::ShareableAppTest < PumaPlus::TestCase
  class Hello
    def initialize(greeting)
      @greeting = greeting
    end

    def call(_env)
      [200, {}, [@greeting]]
    end
  end

  class Middleware
    def initialize(app, &block)
      @app = app
      @block = block
    end
  end

  class Holder
    def initialize(value)
      @value = value
    end
  end

  def message_for(app)
    assert_raises(PumaPlus::ShareableApp::Error) { PumaPlus::ShareableApp.make(app) }.message
  end

  def test_a_plain_object_with_call_is_deeply_frozen_and_shareable
    app = PumaPlus::ShareableApp.make(Middleware.new(Hello.new(+"hi")))
    assert Ractor.shareable?(app)
    assert app.instance_variable_get(:@app).instance_variable_get(:@greeting).frozen?
  end

  def test_a_block_inside_a_middleware_is_named_by_its_path_with_what_to_use_instead
    message = message_for(Middleware.new(Hello.new("hi")) { |env| env })
    assert_match(/\Aapp\.@block: a Proc that is not shareable \(Proc's self is not shareable/, message)
    assert_includes message, "use an object with #call"
  end

  def test_a_rackup_lambda_is_refused_at_the_top
    app = Rack::Builder.new { run ->(_env) { [200, {}, []] } }.to_app
    assert_match(/\Aapp: a Proc that is not shareable/, message_for(app))
  end

  def test_a_mutex_deep_in_a_hash_is_named_by_its_path
    assert_match(/\Aapp\.@value\[:lock\]: Thread::Mutex cannot be shared between Ractors/,
                 message_for(Holder.new({ lock: Mutex.new })))
  end

  def test_an_io_is_refused_without_being_frozen
    reader, writer = IO.pipe
    assert_match(/\Aapp\.@value: an IO cannot be shared between Ractors/, message_for(Holder.new(writer)))
    refute writer.frozen?, "a frozen IO can no longer be written to"
  ensure
    reader&.close
    writer&.close
  end

  def test_a_rails_application_gets_a_direct_message
    script = <<~RUBY
      require "rails"
      require "action_controller/railtie"
      class ShopApp < Rails::Application
        config.eager_load = false
      end
      require "puma_plus/shareable_app"
      begin
        PumaPlus::ShareableApp.make(Rails.application)
      rescue PumaPlus::ShareableApp::Error => e
        print e.message
      end
    RUBY
    output = IO.popen([RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", script], err: File::NULL, &:read)
    assert_equal "Rails applications are not Ractor-safe (class-level mutable state, autoloading, " \
                 "thread-local connections); remove `ractors`", output
  end

  def test_a_sinatra_app_is_refused_at_boot_by_its_path_instead_of_failing_every_request
    script = <<~'RUBY'
      require "sinatra/base"
      require "rack"
      class Shop < Sinatra::Base
        get("/") { "hi" }
      end
      require "puma_plus/shareable_app"
      [Shop, Shop.new, Rack::Builder.new { use Rack::Runtime; run Shop }.to_app].each do |app|
        PumaPlus::ShareableApp.make(app)
        puts "shared #{app.class}"
      rescue PumaPlus::ShareableApp::Error => e
        puts e.message
      end
    RUBY
    output = IO.popen([RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", script], err: File::NULL, &:read)
    lines = output.lines(chomp: true)
    assert_equal 3, lines.size, output
    assert_match(/\Aapp: a Sinatra app is not Ractor-safe .*remove `ractors`\z/, lines[0])
    assert_match(/\Aapp: a Sinatra app is not Ractor-safe/, lines[1])
    assert_match(/\Aapp\.@app: a Sinatra app is not Ractor-safe/, lines[2])
  end
end
