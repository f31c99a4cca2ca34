# What the Rails examples' tests (real_apps_test, rails72_test) do as a browser would: requests with a cookie
# jar, the form's CSRF token, and the rows a page lists.
require "cgi"

module RailsPage
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
end
