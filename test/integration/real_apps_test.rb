# Real applications from Debian's packages, served end to end through the host by forked workers: the
# Sinatra example (examples/sinatra) and the Rails 6.1 example (examples/rails) writing to a fresh sqlite
# database, driven the way a browser drives them (form page, CSRF token, session cookie, redirect).
require "server_helper"
require "rails_page"
require "json"
require "sqlite3"
require "uri"

class RealAppsTest < IntegrationTest
  include RailsPage
  TEST_TIMEOUT = 120
  EXAMPLES = File.join(PumaPlusServer::ROOT, "examples")

  def test_sinatra_app_serves_its_page_form_post_and_params
    server = start_server("config.ru", chdir: File.join(EXAMPLES, "sinatra"), workers: 2, threads: 2)

    page = server.request("GET", "/")
    assert_equal 200, page.status, with_log(server, page.body)
    assert_includes page.body, '<form method="post" action="/greetings">'

    greeting = server.request("POST", "/greetings", FORM, body: URI.encode_www_form(name: "Ada Lovelace"))
    assert_equal 201, greeting.status, with_log(server, greeting.body)
    assert_equal "Hello, Ada Lovelace!\n", greeting.body

    echoed = server.request("POST", "/params/seg?q=x%20y", FORM, body: "a=1&b[]=2&b[]=3")
    assert_equal 200, echoed.status, with_log(server, echoed.body)
    assert_equal({ "q" => "x y", "a" => "1", "b" => %w[2 3], "segment" => "seg", "request_method" => "POST" },
                 JSON.parse(echoed.body))

    assert_equal 404, server.request("GET", "/no/such/page").status
  end

  def test_rails_app_inserts_rows_from_csrf_protected_form_posts_lists_and_reports_them
    database = File.join(temp_dir, "rails.sqlite3")
    server = start_server("config.ru", config: "config/puma-plus.rb", chdir: File.join(EXAMPLES, "rails"),
                                       env: { "DATABASE_PATH" => database })
    assert_equal 2, server.slots, "config/puma-plus.rb: 2 workers x 1 thread"
    worker_pids = server.worker_pids
    assert_equal 2, worker_pids.uniq.size, "two forked workers"

    cookies = {}
    page = browse(server, cookies, "GET", "/rows")
    assert_equal 200, page.status, with_log(server, page.body[0, 2000])
    assert_empty rows_listed(page.body)

    names = ["alpha", "beta & <b>", "gamma"]
    page = post_rows(server, cookies, page, names)
    assert_equal names, rows_listed(page.body)
    assert_equal names, rows_listed(browse(server, cookies, "GET", "/").body)
    stored = SQLite3::Database.new(database).execute("SELECT name FROM rows ORDER BY id").flatten
    assert_equal names, stored, "the rows are in the test's own database"

    report = server.request("GET", "/report?wait=5")
    assert_equal 200, report.status
    assert_includes report.body, "3 rows"
    assert_includes report.body, "Newest: gamma"
    assert_equal 400, server.request("GET", "/report?wait=soon").status

    forged = server.request("POST", "/rows", FORM, body: URI.encode_www_form("row[name]" => "forged"))
    assert_equal 422, forged.status, "a POST without the CSRF token must be refused"
  end
end
