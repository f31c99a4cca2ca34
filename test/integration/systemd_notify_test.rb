# frozen_string_literal: true

# Claims about systemd's notify protocol as a Type=notify(-reload) unit with WatchdogSec= sees it: a
# NOTIFY_SOCKET listener (a unix datagram socket, bound by path and by abstract name) receives READY=1 with
# a STATUS once the server is ready, RELOADING=1 (with MONOTONIC_USEC) then READY=1 around a USR2 hot
# restart, STOPPING=1 at TERM, and WATCHDOG=1 keep-alives throughout.

require_relative "server_helper"
require "socket"

class SystemdNotifyTest < IntegrationTest
  TEST_TIMEOUT = 120

  def test_ready_reloading_stopping_and_watchdog_reach_a_notify_socket_bound_by_path
    path = File.join(temp_dir, "notify.sock")
    listener = Socket.new(:UNIX, :DGRAM)
    listener.bind(Socket.sockaddr_un(path))
    check_lifecycle(listener, path)
  ensure
    listener&.close
  end

  def test_an_abstract_notify_socket_name_is_reached_too
    name = "puma-plus-notify-#{Process.pid}-#{rand(1 << 30)}"
    listener = Socket.new(:UNIX, :DGRAM)
    listener.bind(Socket.sockaddr_un("\0#{name}"))
    server = start_server(app("probe.ru"), workers: 1, threads: 1, env: { "NOTIFY_SOCKET" => "@#{name}" })
    assert_equal "READY=1\nSTATUS=ready, 1 slots", next_message(listener, except: "WATCHDOG=1"), with_log(server, "READY")
  ensure
    listener&.close
  end

  private

  def check_lifecycle(listener, path)
    server = start_server(app("probe.ru"), workers: 1, threads: 2,
                          env: { "NOTIFY_SOCKET" => path, "WATCHDOG_USEC" => "400000" })
    ready = next_message(listener, except: "WATCHDOG=1")
    assert_equal "READY=1\nSTATUS=ready, 2 slots", ready, with_log(server, "READY at the ready line")
    messages = []
    assert eventually(timeout: 5, interval: 0.05) { drain(listener, messages).count("WATCHDOG=1") >= 2 },
           "WATCHDOG=1 every WATCHDOG_USEC/2 (200 ms): #{messages.inspect}"
    assert_equal ["WATCHDOG=1"], messages.uniq, "nothing else while serving"

    Process.kill("USR2", server.pid)
    reloading = next_message(listener, except: "WATCHDOG=1")
    assert_match(/\ARELOADING=1\nMONOTONIC_USEC=(\d+)\nSTATUS=hot restart: starting shepherd generation 2\z/, reloading)
    monotonic_usec = Integer(reloading[/MONOTONIC_USEC=(\d+)/, 1])
    now_usec = Process.clock_gettime(Process::CLOCK_MONOTONIC, :microsecond)
    assert_operator monotonic_usec, :<=, now_usec, "CLOCK_MONOTONIC, as systemd reads it"
    assert_operator monotonic_usec, :>, now_usec - 60_000_000
    assert_equal "READY=1\nSTATUS=ready, generation 2, 2 slots", next_message(listener, except: "WATCHDOG=1"),
                 with_log(server, "READY=1 again once the new generation serves")
    assert server.await_line(/\Apuma-plus: generation 2 ready, 2 slots; retiring generation 1\z/, 5)

    Process.kill("TERM", server.pid)
    assert_equal "STOPPING=1\nSTATUS=stopping (SIGTERM)", next_message(listener, except: "WATCHDOG=1"),
                 with_log(server, "STOPPING=1 at TERM")
    assert server.stop.success?
  end

  # The next datagram that is not +except+ (those are collected into +seen+), within 60 s.
  def next_message(listener, except:, seen: [])
    loop do
      raise "no sd_notify message within 60 s; saw #{seen.inspect}" unless listener.wait_readable(60)

      message = listener.recv(4096)
      return message unless message == except

      seen << message
    end
  end

  # Adds every datagram already waiting to +messages+ and returns them.
  def drain(listener, messages)
    while (message = listener.recv_nonblock(4096, exception: false)).is_a?(String)
      messages << message
    end
    messages
  end
end
