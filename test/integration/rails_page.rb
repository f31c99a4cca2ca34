# What the Rails examples' tests (real_apps_test, rails72_test) do as a browser would: requests with a cookie
# jar, the form's CSRF token, and the rows a page lists.
require "cgi"
require "uri"

module RailsPage
  FORM = { "Content-Type" => "application/x-www-form-urlencoded" }.freeze

  # One request with the cookie jar, updated from the response's Set-Cookie headers.
  def browse(server, cookies, method, target, headers = {}, body: nil)
    headers = headers.merge("Cookie" => cookies.map { |k, v| "#{k}=#{v}" }.join("; ")) unless cookies.empty?
    response = server.request(method, target, headers, body: body)
    response.all("Set-Cookie").each do |cookie|
      name, value = cookie.split(";").first.split("=", 2)
      cookies[name] = value
    end
    response
  end

  def authenticity_token(html)
    token = html[/<input type="hidden" name="authenticity_token" value="([^"]+)"/, 1]
    assert token, "the form carries an authenticity token"
    CGI.unescapeHTML(token)
  end

  def rows_listed(html)
    html.scan(%r{<li class="row">(.*?)</li>}m).flatten.map { |text| CGI.unescapeHTML(text.strip) }
  end

  # POSTs each of +names+ through the page's form (its CSRF token, the jar's session) and follows the
  # redirect back to /rows, as a browser does; yields each name with the page it landed on; returns the last.
  def post_rows(server, cookies, page, names)
    names.each do |name|
      token = authenticity_token(page.body)
      created = browse(server, cookies, "POST", "/rows", FORM,
                       body: URI.encode_www_form("authenticity_token" => token, "row[name]" => name))
      assert_equal 302, created.status, with_log(server, "POST /rows #{name.inspect}: #{created.body[0, 2000]}")
      location = URI(created["Location"])
      assert_equal ["127.0.0.1", server.port, "/rows"], [location.host, location.port, location.path]
      page = browse(server, cookies, "GET", location.request_uri)
      assert_equal 200, page.status
      yield name, page if block_given?
    end
    page
  end
end
