# frozen_string_literal: true

# Claims about a unix:// bind in the deployment it exists for: Debian's nginx, run as an unprivileged test
# process with its own temp config, proxies to the socket file and the example app answers through it; a
# stale socket file left by a killed server is replaced at start, and the file is gone once the server stopped.
# umask/mode give the file its permissions, and the env is puma's (REMOTE_ADDR 127.0.0.1, server from Host).

require_relative "server_helper"
require "net/http"
require "socket"
require "etc"
require "json"

class UnixBindNginxTest < IntegrationTest

  NGINX = "/usr/sbin/nginx"

  def test_nginx_proxies_to_a_unix_bind_that_serves_the_example_and_the_socket_file_goes_with_the_server
    skip_or_fail("no #{NGINX} (script/setup installs nginx)") unless File.executable?(NGINX)
    dir = temp_dir
    File.chmod(0o755, dir) # nginx's workers run as another user and must reach the socket file
    socket = File.join(dir, "app.sock")
    stale = UNIXServer.new(socket)
    stale.close # the file stays behind, as a killed server's does
    server = start_server(File.join(PumaPlusServer::ROOT, "examples", "hello", "config.ru"), args: ["-b", "unix://#{socket}"])
    assert server.output.include?("puma-plus: listening on unix://#{socket}"), with_log(server, "announced")
    assert File.socket?(socket)
    assert_equal 0o777, File.stat(socket).mode & 0o777, "puma's default umask 0: anyone may connect"

    port = start_nginx(dir, socket)
    response = Net::HTTP.start("127.0.0.1", port, open_timeout: 5, read_timeout: 10) { |http| http.get("/") }
    assert_equal "200", response.code, with_log(server, response.body)
    assert_equal "Hello from puma-plus\n", response.body

    assert server.stop.success?, with_log(server, "exit")
    refute File.exist?(socket), "the socket file is removed when the server stops"
  end

  def test_umask_and_mode_set_the_socket_files_permissions_and_the_env_is_pumas
    dir = temp_dir
    masked = File.join(dir, "masked.sock")
    moded = File.join(dir, "moded.sock")
    server = start_server(app("env_dump.ru"),
                          args: ["-b", "unix://#{masked}?umask=0027", "-b", "unix://#{moded}?mode=0600"])
    assert_equal [0o750, 0o600], [masked, moded].map { |path| File.stat(path).mode & 0o777 }
    UNIXSocket.open(moded) do |client|
      client.write("GET /e HTTP/1.1\r\nHost: app.test:8080\r\nConnection: close\r\n\r\n")
      head, body = client.read.split("\r\n\r\n", 2)
      assert_match(/\AHTTP\/1\.1 200 /, head)
      env = JSON.parse(body).to_h
      assert_equal ["127.0.0.1", "app.test", "8080", "http"],
                   env.values_at("REMOTE_ADDR", "SERVER_NAME", "SERVER_PORT", "rack.url_scheme"),
                   "puma's env on a unix socket: REMOTE_ADDR 127.0.0.1, the server from Host"
    end
    assert server.stop.success?, with_log(server, "exit")
    refute File.exist?(masked) || File.exist?(moded), "both socket files are removed"
  end

  private

  # Starts nginx in the foreground (daemon off) with pid, logs and temp files under +dir+, proxying a free
  # 127.0.0.1 port to +socket+; as root it drops to nobody first. Returns the port once it accepts.
  def start_nginx(dir, socket)
    port = TCPServer.open("127.0.0.1", 0) { |probe| probe.addr[1] }
    home = File.join(dir, "nginx")
    Dir.mkdir(home)
    conf = File.join(home, "nginx.conf")
    File.write(conf, <<~CONF)
      daemon off;
      worker_processes 1;
      pid #{home}/nginx.pid;
      error_log #{home}/error.log;
      events { worker_connections 64; }
      http {
        access_log #{home}/access.log;
        client_body_temp_path #{home}/body;
        proxy_temp_path #{home}/proxy;
        fastcgi_temp_path #{home}/fastcgi;
        uwsgi_temp_path #{home}/uwsgi;
        scgi_temp_path #{home}/scgi;
        upstream app { server unix:#{socket}; }
        server {
          listen 127.0.0.1:#{port};
          location / {
            proxy_pass http://app;
            proxy_set_header Host $http_host;
          }
        }
      }
    CONF
    command = [NGINX, "-p", home, "-c", conf, "-e", "#{home}/error.log"]
    if Process.uid.zero?
      nobody = Etc.getpwnam("nobody")
      File.chown(nobody.uid, nobody.gid, home)
      command = ["setpriv", "--reuid=#{nobody.uid}", "--regid=#{nobody.gid}", "--clear-groups", *command]
    end
    pid = Process.spawn(*command, in: File::NULL, out: File.join(dir, "nginx.out"), err: [:child, :out])
    @nginx_pids = (@nginx_pids || []) << pid
    up = eventually(timeout: 10) { TCPSocket.open("127.0.0.1", port).close || true rescue false }
    assert up, "nginx listens on #{port}: #{File.read(File.join(dir, 'nginx.out')) rescue ''}"
    port
  end

  def teardown
    (@nginx_pids || []).each do |pid|
      Process.kill("QUIT", pid)
      Process.wait(pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end
    super
  end
end
