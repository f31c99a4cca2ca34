# frozen_string_literal: true

# Claims about systemd socket activation with Debian's systemd-socket-activate (which listens, waits for the
# first connection, then execs the server with LISTEN_FDS/LISTEN_PID): the HTTP/1.1 listener adopts the
# passed socket instead of binding (on the epoll transport), the connection that woke it is served, and
# puma's --bind-to-activated-sockets decides which binds there are.

require_relative "server_helper"
require "socket"

class SocketActivationTest < IntegrationTest
  TEST_TIMEOUT = 120
  ACTIVATE = "/usr/bin/systemd-socket-activate"

  def test_only_the_activated_socket_is_a_bind_and_the_connection_that_woke_the_server_is_served
    port = free_port
    server = activated_server(port, "--bind-to-activated-sockets", "only")
    assert_equal "HTTP/1.1 200 OK", @first_response.lines.first.chomp, with_log(server, @first_response)
    assert_equal port, server.port, "announced the activated socket's port"
    assert server.output.include?("puma-plus: tcp://127.0.0.1:#{port} is systemd's activated socket (fd 3)"),
           with_log(server, "adopted, not bound")
    refute_match(/listening on http:\/\/0\.0\.0\.0:9292/, server.output, "only: the default bind is not bound")
    assert_equal 200, server.request("GET", "/pid").status
    assert server.output.include?("puma-plus: host pid #{server.pid},"),
           with_log(server, "systemd-socket-activate's pid is the host's: LISTEN_PID names it (the executable execs java)")
    assert_match(/puma-plus: host pid \d+, Java \d+, epoll transport;/, server.output,
                 "with systemd's sockets the host runs epoll, whose channels adopt a descriptor (not io_uring)")
    assert server.stop.success?, with_log(server, "exit")
  end

  def test_a_bind_on_the_activated_address_adopts_it_without_the_flag
    port = free_port
    server = activated_server(port, "-b", "tcp://127.0.0.1:#{port}")
    assert_equal "HTTP/1.1 200 OK", @first_response.lines.first.chomp, with_log(server, @first_response)
    assert server.output.include?("puma-plus: tcp://127.0.0.1:#{port} is systemd's activated socket (fd 3)"),
           with_log(server, "adopted, not bound")
    assert server.stop.success?, with_log(server, "exit")
  end

  private

  def free_port
    TCPServer.open("127.0.0.1", 0) { |probe| probe.addr[1] }
  end

  # Starts systemd-socket-activate on 127.0.0.1:+port+ with puma-plus and +args+ behind it; the first
  # connection (which starts the server) sends a request whose answer lands in @first_response.
  def activated_server(port, *args)
    skip_or_fail("no #{ACTIVATE}") unless File.executable?(ACTIVATE)
    command = [ACTIVATE, "-l", "127.0.0.1:#{port}", "--", PumaPlusServer::EXE, *args,
               "--control-url", "tcp://127.0.0.1:0", app("probe.ru")]
    waker = Thread.new do
      socket = eventually(timeout: 30, interval: 0.05) { TCPSocket.new("127.0.0.1", port) rescue nil } # rubocop:disable Style/RescueModifier
      socket.write("GET /pid HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      socket.read.tap { socket.close }
    end
    server = start_server(command: command)
    @first_response = waker.value
    server
  end
end
