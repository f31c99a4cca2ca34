# A raw HTTP/1.1 client for the integration tests: the test writes exact bytes to a TCP socket and reads
# responses back with a strict parser, every read bounded by a deadline. It sits on the client's side of
# the request's path (accept → parse → ...), so the tests see precisely what a real client would.
require "socket"

module RawHttp
  class Timeout < StandardError; end

  # One parsed response. `headers` keeps arrival order and repeats: [[name, value], ...].
  Response = Struct.new(:version, :status, :reason, :headers, :body, :received_at, keyword_init: true) do
    # Values of every header called `name` (case-insensitive), in order.
    def all(name)
      headers.select { |k, _| k.casecmp?(name) }.map(&:last)
    end

    # The first value of header `name`, or nil.
    def [](name)
      all(name).first
    end
  end

  # One client connection. Not thread-safe: one thread reads; writing from a second thread is fine.
  class Connection
    attr_reader :socket

    def initialize(host, port, timeout: 10)
      @socket = Socket.tcp(host, port, connect_timeout: timeout)
      @socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
      @buffer = String.new(encoding: Encoding::BINARY)
    end

    def write(bytes)
      @socket.write(bytes)
      self
    end

    # Writes from a background thread, for requests large enough that the server may answer (and close)
    # before it has read them all; a write cut short by that close is not an error. Returns the thread.
    def write_in_background(bytes)
      Thread.new do
        @socket.write(bytes)
      rescue Errno::EPIPE, Errno::ECONNRESET, IOError
        nil
      end
    end

    # Reads one response (an interim 1xx response counts as one). `head: true` when the request was HEAD,
    # whose response has no body whatever its headers say. Raises RawHttp::Timeout after `timeout` seconds
    # and EOFError when the server closes before a whole response arrived.
    def read_response(head: false, timeout: 10)
      deadline = now + timeout
      head_end = read_until("\r\n\r\n", deadline)
      lines = @buffer.slice!(0, head_end + 4).split("\r\n")
      version, status, reason = lines.shift.split(" ", 3)
      raise "malformed status line #{version} #{status}" unless version&.start_with?("HTTP/") && status =~ /\A\d{3}\z/

      headers = lines.map do |line|
        name, value = line.split(":", 2)
        raise "malformed header line #{line.inspect}" unless value
        [name, value.strip]
      end
      response = Response.new(version: version, status: Integer(status), reason: reason.to_s,
                              headers: headers, body: String.new(encoding: Encoding::BINARY))
      unless head || response.status < 200 || [204, 304].include?(response.status)
        response.body = read_body(response, deadline)
      end
      response.received_at = now
      response
    end

    # True when the server closes the connection (EOF or reset) within `timeout` seconds with no more
    # response bytes; false if it stays open. Bytes that do arrive are an error.
    def closed_by_server?(timeout: 5)
      deadline = now + timeout
      loop do
        raise "unexpected bytes after the response: #{@buffer.inspect}" unless @buffer.empty?
        fill(deadline)
      end
    rescue EOFError, Errno::ECONNRESET
      true
    rescue RawHttp::Timeout
      false
    end

    def close
      @socket.close unless @socket.closed?
    end

    private

    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    def read_body(response, deadline)
      if response["Transfer-Encoding"]&.downcase&.include?("chunked")
        read_chunked(deadline)
      elsif (length = response["Content-Length"])
        take(Integer(length), deadline)
      else
        read_to_eof(deadline)
      end
    end

    def read_chunked(deadline)
      body = String.new(encoding: Encoding::BINARY)
      loop do
        line_end = read_until("\r\n", deadline)
        size = Integer(@buffer.slice!(0, line_end + 2).split(";").first.strip, 16)
        if size.zero?
          loop do # trailer section, ended by an empty line
            line_end = read_until("\r\n", deadline)
            break if @buffer.slice!(0, line_end + 2) == "\r\n"
          end
          return body
        end
        body << take(size, deadline)
        raise "chunk not followed by CRLF" unless take(2, deadline) == "\r\n"
      end
    end

    def read_to_eof(deadline)
      loop { fill(deadline) }
    rescue EOFError
      @buffer.slice!(0, @buffer.bytesize)
    end

    def take(count, deadline)
      fill(deadline) while @buffer.bytesize < count
      @buffer.slice!(0, count)
    end

    def read_until(delimiter, deadline)
      loop do
        index = @buffer.index(delimiter)
        return index if index
        fill(deadline)
      end
    end

    def fill(deadline)
      loop do
        chunk = @socket.read_nonblock(65_536, exception: false)
        case chunk
        when :wait_readable
          remaining = deadline - now
          raise RawHttp::Timeout, "no response within the deadline; buffered: #{@buffer[0, 200].inspect}" if remaining <= 0
          @socket.wait_readable(remaining)
        when nil
          raise EOFError, "server closed the connection; buffered: #{@buffer[0, 200].inspect}"
        else
          @buffer << chunk
          return
        end
      end
    end
  end

  module_function

  # A request's bytes: method, target, headers (a Hash or pairs), optional body with Content-Length.
  def request(method, target, headers = {}, body: nil, host: "127.0.0.1")
    lines = ["#{method} #{target} HTTP/1.1", "Host: #{host}"]
    headers.each { |name, value| lines << "#{name}: #{value}" }
    lines << "Content-Length: #{body.bytesize}" if body && headers.none? { |n, _| n.casecmp?("Transfer-Encoding") || n.casecmp?("Content-Length") }
    (lines.join("\r\n") + "\r\n\r\n").b + (body || "").b
  end
end
