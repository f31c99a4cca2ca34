# Generates HTTP/1.x requests for the parser fuzz test (http1_fuzz_test.rb), the client side of the parse
# step: a valid seed request, then mutations drawn from a seeded Random. Each mutation is known to keep the
# request valid, to break a MUST of RFC 9112 (named with its section), or (byte-level havoc) to do either;
# the case carries that verdict so the test can judge the server's answer.
class Http1Mutator
  # One generated request. `violations` names the MUSTs it breaks (empty: valid), `havoc` says byte-level
  # mutations made its validity unknown; `path` is the PATH_INFO prefix the app logs if it is called
  # (/fz-SEED-N/, or /hv-SEED-N/ for havoc, whose mutations may rewrite it).
  Case = Struct.new(:bytes, :path, :violations, :havoc, :steps, keyword_init: true) do
    def valid? = violations.empty? && !havoc
    def violating? = !violations.empty?
  end

  # The request being built: a request line, field lines, and the body bytes, serialised by #bytes.
  Draft = Struct.new(:leading, :method, :target, :version, :headers, :body, :raw_edits, keyword_init: true) do
    def header(name) = headers.find { |n, _| n.casecmp?(name) }
    def delete(name) = headers.reject! { |n, _| n.casecmp?(name) }

    def bytes
      head = [leading, method, " ", target, " ", version, "\r\n"].map(&:b).join.b
      headers.each { |name, value| head << name.b << ":" << value.b << "\r\n" }
      head << "\r\n"
      raw_edits.each { |edit| head = edit.call(head) }
      head + body.b
    end
  end

  TCHAR = [*"a".."z", *"A".."Z", *"0".."9", *"!#$%&'*+-.^_`|~".chars].freeze
  # Bytes a target may hold besides alphanumerics (RFC 3986 plus what browsers leave unencoded).
  TARGET_EXTRA = "-._~!$&'()*+,;=:@/%{}|\\^`[]".chars.freeze
  NOT_TCHAR = "()/;<=>?@[\\]{}\" ".chars.freeze # ':' would just end the name early
  CTL = [*0x00..0x08, *0x0A..0x1F, 0x7F].map(&:chr).freeze # not HTAB
  BAD_HOSTS = ["a b", "a/b", "u@a.example", "a.example:x", "[::1", "a.example:70000", ":80", "a.example, b",
               "a%zz", "[1:::2]", "a\"b", "a<b"].freeze
  BAD_VERSIONS = ["HTTP/1", "http/1.1", "HTTP/11", "HTTP/1.1.1", "HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTPS/1.1",
                  "HTTP/1.1 ", "HTTP /1.1", "HTTP/1.x"].freeze

  def initialize(seed)
    @seed = seed
    @random = Random.new(seed)
    @count = 0
  end

  attr_reader :seed

  # The next case. A third are left valid (with neutral mutations), a half break one or more MUSTs, the rest
  # get byte-level havoc.
  def next_case
    @count += 1
    kind = rand
    havoc = kind >= 0.5 && kind < 0.67
    # Havoc can turn "/fz-1-123/" into "/fz-1-12/", another case's path: its cases are named apart.
    path = "/#{havoc ? 'hv' : 'fz'}-#{@seed}-#{@count}/"
    draft = seed_request(path)
    steps = []
    violations = []
    rand(0..2).times { steps << neutral(draft) }
    if kind < 0.5
      rand(1..2).times do
        name = violate(draft)
        steps << name
        violations << name
      end
    elsif havoc
      draft.body = "x" * draft.body.bytesize # no request inside: havoc may legitimately end the body early
    end
    bytes = draft.bytes
    bytes = havoc(bytes, steps) if havoc
    Case.new(bytes: bytes, path: path, violations: violations, havoc: havoc, steps: steps)
  end

  private

  def rand(range = nil) = range ? @random.rand(range) : @random.rand
  def pick(list) = list[rand(list.size)]

  # A request smuggled inside a body: never parsed as a request when the framing is read right.
  def payload = "GET /smuggled-#{@seed}-#{@count} HTTP/1.1\r\nHost: a.example\r\n\r\n"

  def chunked(body)
    body.empty? ? "0\r\n\r\n" : "#{body.bytesize.to_s(16)}\r\n#{body}\r\n0\r\n\r\n"
  end

  def seed_request(path)
    body = payload
    host = [" a.example"]
    case rand(6)
    when 0 then draft("GET", path, "HTTP/1.1", [["Host", *host]], "")
    when 1 then draft("POST", path, "HTTP/1.1", [["Host", *host], ["Content-Type", " text/plain"], ["Content-Length", " #{body.bytesize}"]], body)
    when 2 then draft("POST", path, "HTTP/1.1", [["Host", *host], ["Transfer-Encoding", " chunked"]], chunked(body))
    when 3 then draft("GET", path, "HTTP/1.0", [["Connection", " keep-alive"]], "")
    when 4 then draft("PUT", path, "HTTP/1.0", [["Host", *host], ["Content-Length", " #{body.bytesize}"], ["Connection", " keep-alive"]], body)
    else draft("GET", "http://a.example:8080#{path}?q=1", "HTTP/1.1", [["Host", " other.example"]], "")
    end
  end

  def draft(method, target, version, headers, body)
    Draft.new(leading: "", method: method, target: target, version: version, headers: headers, body: body, raw_edits: [])
  end

  # Mutations that keep the request valid; each returns its name.
  def neutral(d)
    case rand(7)
    when 0
      i = any_header(d)
      d.headers[i][0] = d.headers[i][0].chars.map { |c| rand < 0.5 ? c.swapcase : c }.join
      "neutral: header name case"
    when 1
      i = any_header(d)
      d.headers[i][1] = "#{pick(['', ' ', "\t", " \t"])}#{d.headers[i][1].strip}#{pick(['', ' ', "\t"])}"
      "neutral: OWS around a value"
    when 2
      d.headers.insert(rand(d.headers.size + 1), ["X-Fz-#{rand(1000)}", " #{Array.new(rand(1..20)) { (rand(0x21..0x7E)).chr }.join}"])
      "neutral: extra field"
    when 3
      d.leading = "\r\n" * rand(1..2)
      "neutral: empty lines before the request line"
    when 4
      extra = Array.new(rand(1..12)) { rand < 0.5 ? pick([*"a".."z", *"0".."9"]) : pick(TARGET_EXTRA) }.join
      d.target = d.target.sub(%r{/(\?|\z)}) { "/#{extra.delete('?')}#{Regexp.last_match(1)}" }
      "neutral: more target characters"
    when 5
      if (length = d.header("Content-Length"))
        length[1] = " 00#{length[1].strip}"
        "neutral: Content-Length with leading zeros"
      elsif (te = d.header("Transfer-Encoding"))
        te[1] = " CHUNKED"
        "neutral: chunked in capitals"
      else
        "neutral: none"
      end
    else
      d.headers.shuffle!(random: @random)
      "neutral: field order"
    end
  end

  # Mutations that break a MUST of RFC 9112 whatever else is done to the request; each returns its name.
  def violate(d)
    case rand(24)
    when 0
      d.delete("Content-Length")
      d.delete("Transfer-Encoding")
      d.body = payload
      d.headers << ["Content-Length", " #{payload.bytesize}"] << ["Content-Length", " 0"]
      "§6.3 two Content-Length values that differ"
    when 1
      d.delete("Content-Length")
      d.delete("Transfer-Encoding")
      d.body = payload
      d.headers << ["Content-Length", pick([" 0, #{payload.bytesize}", " #{payload.bytesize}, #{payload.bytesize}"])]
      "§6.3 Content-Length list"
    when 2
      d.delete("Content-Length")
      d.body = payload
      d.headers << ["Content-Length", pick([" +#{payload.bytesize}", " -1", " 0x10", " 1e3", " 99999999999999999999", " #{payload.bytesize}a"])]
      "§6.3 Content-Length not 1*DIGIT"
    when 3
      d.version = "HTTP/1.0"
      d.delete("Content-Length")
      d.delete("Transfer-Encoding")
      d.headers << ["Transfer-Encoding", " chunked"]
      d.body = chunked(payload)
      "§6.1 Transfer-Encoding on HTTP/1.0"
    when 4
      d.delete("Content-Length")
      d.delete("Transfer-Encoding")
      d.headers << ["Transfer-Encoding", " chunked"] << ["Content-Length", " 5"]
      d.body = "0\r\n\r\n#{payload}"
      "§6.3 Transfer-Encoding with Content-Length"
    when 5
      d.delete("Content-Length")
      d.delete("Transfer-Encoding")
      d.headers << ["Transfer-Encoding", pick([" chunked, gzip", " gzip", " identity", " chunked, identity", " chunked, chunked", " chunked\r\nTransfer-Encoding: x"])]
      d.body = payload
      "§6.3 / §7 Transfer-Encoding not ending in exactly one chunked"
    when 6
      d.delete("Host")
      d.version = "HTTP/1.1"
      "§3.2 HTTP/1.1 without Host"
    when 7
      d.headers << ["Host", " b.example"]
      d.headers << ["Host", " a.example"] unless d.headers.count { |n, _| n.casecmp?("Host") } > 1
      "§3.2 more than one Host"
    when 8
      d.delete("Host")
      d.headers << ["Host", " #{pick(BAD_HOSTS)}"]
      "§3.2 invalid Host"
    when 9
      insert_into_target(d, pick(CTL))
      "§3.2 CTL in the target"
    when 10
      insert_into_target(d, pick([" ", "\"", "<", ">", "#", "\x80".b, "\xC3\xA9".b, "\xFF".b]))
      "§3.2 byte not allowed in the target"
    when 11
      d.raw_edits << lambda { |head|
        ends = []
        from = 0
        while (at = head.index("\r\n", from))
          ends << at
          from = at + 2
        end
        at = ends[@random.rand(ends.size)]
        head.byteslice(0, at) + "\n" + head.byteslice(at + 2..)
      }
      "§2.2 bare LF"
    when 12
      i = any_header(d)
      d.headers[i][1] = " a\rb#{d.headers[i][1]}"
      "§2.2 bare CR in a field value"
    when 13
      i = any_header(d)
      d.headers[i][1] = "#{d.headers[i][1]}\r\n#{pick([' ', "\t"])}folded"
      "§5.2 obs-fold"
    when 14
      i = any_header(d)
      d.headers[i][0] = "#{d.headers[i][0]}#{pick([' ', "\t", '  '])}"
      "§5.1 whitespace between field name and colon"
    when 15
      i = any_header(d)
      name = d.headers[i][0]
      at = rand(name.size + 1)
      d.headers[i][0] = name[0...at] + pick(NOT_TCHAR) + name[at..]
      "§5.1 field name not a token"
    when 16
      i = any_header(d)
      value = d.headers[i][1]
      at = rand(1..value.size)
      d.headers[i][1] = value[0...at] + pick(CTL) + value[at..]
      "§5.5 CTL in a field value"
    when 17
      d.raw_edits << ->(head) { head.sub(" ", pick(["  ", "\t", "\r", "\v", "\f"])) }
      "§3 method and target not separated by one SP"
    when 18
      d.version = pick(BAD_VERSIONS)
      "§2.3 HTTP-version not 1.0 or 1.1"
    when 19
      at = rand(d.method.size + 1)
      d.method = d.method[0...at] + pick(NOT_TCHAR + CTL) + d.method[at..]
      "§3.1 method not a token"
    when 20
      d.leading = pick([" ", "\t", "\n", "\x00", "\r", "\x0B"])
      "§2.2 / §3 bytes before the request line"
    when 21
      path = d.target[%r{/fz-.*}]
      # Not "//a.example/x": an absolute-path may start with an empty segment, so that is origin-form.
      d.target = pick(["a.example:443", "*", "ftp://a.example#{path}", "http://u@a.example#{path}", "http://#{path}",
                       "fz#{path}", "?q"])
      "§3.2 request target in no valid form"
    when 22
      d.headers.insert(0, [" X-Lead", " v"])
      "§2.2 whitespace before the first field line"
    else
      d.version = "HTTP/1.1"
      d.headers << ["Host", " a.example"] unless d.header("Host")
      d.headers << ["X-Pad", " #{'p' * (112 * 1024)}"]
      "RFC 6585 §5 header section over 112 KiB (431)"
    end
  end

  # The index of a random field line, adding one when a mutation left none.
  def any_header(d)
    d.headers << ["X-Fz", " v"] if d.headers.empty?
    rand(d.headers.size)
  end

  # Inserts `byte` after the case's path prefix, so the app's log would still name the case.
  def insert_into_target(d, byte)
    from = d.target.index("/fz-")
    from = d.target.index("/", from + 1) + 1 if from
    from ||= 0
    at = from + rand(d.target.size - from + 1)
    d.target = d.target[0...at] + byte + d.target[at..]
  end

  # Byte-level mutations of the whole request: flips, deletions, insertions, repeats, a cut.
  def havoc(bytes, steps)
    bytes = bytes.dup
    rand(1..4).times do
      at = rand(bytes.bytesize)
      case rand(5)
      when 0 then bytes.setbyte(at, bytes.getbyte(at) ^ (1 << rand(8)))
      when 1 then bytes[at, 1] = ""
      when 2 then bytes.insert(at, rand(256).chr)
      when 3 then bytes.insert(at, bytes.byteslice(at, rand(1..8)).to_s)
      else bytes = bytes.byteslice(0, at)
      end
      break if bytes.empty?
    end
    steps << "havoc"
    bytes.empty? ? "\r\n".b : bytes
  end
end
