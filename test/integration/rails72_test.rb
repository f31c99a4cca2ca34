# The Rails 7.2 example (examples/rails72) on Ruby 3.3, with the Rails 7.2 script/rails72 assembled from
# Debian trixie's packages, served end to end by puma-plus through the example's one command,
# bin/puma-plus, in production (eager_load) with two forked workers: the page lists the database's rows,
# form POSTs with the page's CSRF token insert rows, a forged token is refused, and a Live action streams.
# On Ruby 3.1 it skips (the assembly's C extensions are built for build/ruby-3.3); on 3.3, once
# `script/setup --ruby 3.3` has run (as script/test's 3.3 steps need), Rails 7.2 must be there.
require "server_helper"
require "rails_page"
require "cgi"
require "sqlite3"

class Rails72Test < IntegrationTest
  include RailsPage
  TEST_TIMEOUT = 120
  APP = File.join(PumaPlusServer::ROOT, "examples/rails72")
  RUBY33_READY = File.join(PumaPlusServer::ROOT, "build/ruby-3.3/READY")
  RAILS72_READY = File.join(PumaPlusServer::ROOT, "build/rails-7.2/READY")

  def setup
    super
    if Gem::Version.new(RUBY_VERSION) < Gem::Version.new("3.2")
      skip("Rails 7.2 is assembled for Ruby 3.3 only (script/rails72 builds its nokogiri and websocket-driver " \
           "for build/ruby-3.3); this is Ruby #{RUBY_VERSION}")
    end
    return if File.file?(RAILS72_READY)

    if File.file?(RUBY33_READY)
      flunk("build/ruby-3.3 is built but build/rails-7.2 is not: script/setup --ruby 3.3 runs script/rails72 " \
            "after script/ruby33")
    end
    skip_or_fail("no Ruby 3.3 with Rails 7.2 in build/: run script/setup --ruby 3.3")
  end

  def test_rails_7_2_in_production_lists_rows_and_inserts_them_from_csrf_protected_form_posts
    database = File.join(temp_dir, "rails72.sqlite3")
    server = start_rails72(database)
    assert_equal 2, server.slots, "config/puma-plus.rb: 2 workers x 1 thread"
    assert_equal 2, server.worker_pids.uniq.size, "two forked workers"

    cookies = {}
    page = browse(server, cookies, "GET", "/rows")
    assert_equal 200, page.status, with_log(server, page.body[0, 2000])
    versions = page.body[%r{<footer id="versions">(.*?)</footer>}, 1]
    # YJIT is on with or without RUBY_YJIT_ENABLE: Rails 7.2's defaults (config.yjit) turn it on at boot.
    assert_match(/\ARails 7\.2\.\d+(\.\d+)?, Rack 3\.1\.\d+, Ruby 3\.3\.\d+, YJIT on, production, eager_load true\z/,
                 versions, "Rails 7.2 on Rack 3.1 and Ruby 3.3, booted in production with the app eager-loaded")
    assert_empty rows_listed(page.body)

    names = ["alpha", "beta & <b>", "gamma"]
    page = post_rows(server, cookies, page, names) do |name, landed|
      assert_includes landed.body, %(<p class="notice">Added #{CGI.escapeHTML(name)}.</p>)
    end
    assert_equal names, rows_listed(page.body)
    db = SQLite3::Database.new(database)
    assert_equal names, db.execute("SELECT name FROM rows ORDER BY id").flatten, "the rows are in the test's database"
    # A row written beside the app is on the next page: the view lists the table's rows, read per request.
    db.execute("INSERT INTO rows (name, created_at, updated_at) VALUES ('delta', datetime(), datetime())")
    db.close
    names << "delta"
    assert_equal names, rows_listed(browse(server, cookies, "GET", "/").body)

    # The same session, a token that is not the page's: refused, and nothing inserted.
    forged = browse(server, cookies, "POST", "/rows", FORM,
                    body: URI.encode_www_form("authenticity_token" => "A" * 86, "row[name]" => "forged"))
    assert_equal 422, forged.status, with_log(server, "a POST with a forged CSRF token must be refused")
    assert_equal names, rows_listed(browse(server, cookies, "GET", "/rows").body), "no row from the forged POST"

    stream = server.request("GET", "/stream")
    assert_equal [200, "chunked"], [stream.status, stream["Transfer-Encoding"]], with_log(server, stream.body)
    assert_equal "<!doctype html>\n<title>stream</title>\n<ol>\n" + (0..4).map { |i| "<li>part #{i}</li>\n" }.join +
                 "</ol>\n", stream.body
  end

  private

  # examples/rails72/bin/puma-plus, as a user runs it, on port 0 with a control listener.
  def start_rails72(database)
    command = [File.join(APP, "bin/puma-plus"), "-b", "tcp://127.0.0.1:0", "--control-url", "tcp://127.0.0.1:0",
               "-e", "production"]
    start_server(command: command, chdir: APP, env: { "DATABASE_PATH" => database })
  end
end
