# frozen_string_literal: true

# `puma-plus ctl` (docs/CONFIG.md, "puma-plus ctl"): pumactl's verbs over the host's control app, with its
# auth token. Finds the control app from --control-url, a state file (-S, written by state_path) or the
# config file (-C, default config/puma-plus.rb). Runs in the puma-plus executable; needs no JDK.

require "json"
require "net/http"
require "optparse"
require "uri"
require "yaml"
require_relative "configuration"

module PumaPlus
  class ControlClient
    # verb => control app path
    COMMANDS = {
      "stats" => "/stats", "status" => "/stats", "restart" => "/restart", "reload-config" => "/reload-config",
      "phased-restart" => "/phased-restart", "refork" => "/refork", "stop" => "/stop", "halt" => "/halt",
      "controller" => "/controller"
    }.freeze

    class Error < StandardError; end

    # Runs `puma-plus ctl ARGV`; prints to +out+/+err+ and returns the exit status (0 ok, 1 failure).
    def self.run(argv, out: $stdout, err: $stderr, env: ENV, cwd: Dir.pwd)
      new(argv, env: env, cwd: cwd).call(out)
    rescue Error, ConfigError, OptionParser::ParseError => e
      err.puts "puma-plus ctl: #{e.message}"
      1
    end

    def initialize(argv, env: ENV, cwd: Dir.pwd)
      @env = env
      @cwd = cwd
      rest = OptionParser.new do |o|
        o.on("-C", "--config PATH") { |v| @config = v }
        o.on("-S", "--state PATH") { |v| @state = v }
        o.on("--control-url URI") { |v| @url = v }
        o.on("-T", "--control-token TOKEN") { |v| @token = v }
      end.parse(argv)
      @command, @jar = rest
      # `controller` alone reports the autoscaling policy; `controller JAR` swaps the controller bundle.
      unless COMMANDS.key?(@command) && (rest.size == 1 || (@command == "controller" && rest.size == 2))
        raise Error, "expected one command of #{COMMANDS.keys.join(', ')} (controller [JAR]), got #{rest.join(' ').inspect}"
      end
    end

    def call(out)
      url, token = control_app
      uri = URI("#{url.sub(%r{\Atcp://}, 'http://')}#{COMMANDS.fetch(@command)}")
      query = {}
      query[:jar] = File.expand_path(@jar, @cwd) if @jar
      query[:token] = token if token
      uri.query = URI.encode_www_form(query) unless query.empty?
      response = begin
        Net::HTTP.start(uri.host, uri.port, open_timeout: 5, read_timeout: 30) do |http|
          @jar ? http.post(uri.request_uri, "") : http.get(uri.request_uri)
        end
      rescue SystemCallError, IOError, Net::OpenTimeout, Net::ReadTimeout => e
        raise Error, "puma-plus is not running" if @command == "status"

        raise Error, "cannot reach the control app at #{url}: #{e.message}"
      end
      if response.code == "403"
        raise Error, "the control app refused the token (403)" if response.body.to_s.include?("invalid auth token")

        raise Error, "#{@command}: the control app refused (403): #{response.body.to_s.strip}"
      end
      unless response.code == "200"
        raise Error, "#{@command}: the control app answered #{response.code} #{response.body.to_s.strip}".rstrip
      end

      case @command
      when "stats", "controller" then out.puts response.body
      when "status" then out.puts "puma-plus is running (host pid #{JSON.parse(response.body)['pid']})"
      else out.puts "Command #{@command} sent success"
      end
      0
    end

    private

    # [control URL, token] from the flags, the state file or the config file, in that order.
    def control_app
      return [@url, @token] if @url

      if @state
        state = YAML.safe_load(File.read(File.expand_path(@state, @cwd)))
        raise Error, "#{@state} names no control_url (is activate_control_app set?)" unless state.is_a?(Hash) && state["control_url"]

        return [state["control_url"], @token || state["control_auth_token"]]
      end
      argv = @config ? ["-C", @config] : []
      config = Configuration.resolve(argv, env: @env, cwd: @cwd)
      raise Error, "no control app configured (activate_control_app, or pass --control-url or -S)" unless config.control_url
      if config.control_url.end_with?(":0")
        raise Error, "the control app listens on port 0 (an ephemeral port): use -S with state_path"
      end

      if @token.nil? && config.control_token.nil?
        raise Error, "the control app's token is generated at boot: pass -T TOKEN (the boot log prints it), " \
                     "or use -S with state_path"
      end

      [config.control_url, @token || config.control_token || nil]
    rescue SystemCallError => e
      raise Error, e.message
    end
  end
end
