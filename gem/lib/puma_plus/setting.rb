# frozen_string_literal: true

# Value checks shared by the three configuration sources (flags, config file, environment), so that
# `-w two`, `workers "two"` and `WEB_CONCURRENCY=two` are refused with the same words. Each method
# returns the normalised value or raises ConfigError with "<what>: <problem>"; callers add file:line.

require "uri"
require "socket"
require "etc"
require_relative "config_error"
require_relative "worker/scheduling"

module PumaPlus
  module Setting
    BIND = %r{\Atcp://(?<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?<port>\d{1,5})\z}.freeze
    # puma's TLS bind: ssl://HOST:PORT, optionally ?cert=PATH&key=PATH (URL-encoded) and verify_mode=none.
    SSL_BIND = %r{\Assl://(?<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]?]+):(?<port>\d{1,5})(?:\?(?<query>\S*))?\z}.freeze
    SSL_PARAMS = %w[cert key verify_mode].freeze
    # puma's unix domain socket bind: unix://PATH (absolute as unix:///run/app.sock, or relative to the
    # directory the server starts in), optionally ?umask=0111 (Ruby Integer(): a leading 0 is octal),
    # mode=0660 (octal) and backlog=N. Abstract names (unix://@name) are refused: they have no file.
    UNIX_BIND = %r{\Aunix://(?<path>[^?@\s][^?]*)(?:\?(?<query>\S*))?\z}.freeze
    UNIX_PARAMS = { "umask" => /\A(0[0-7]*|[1-9]\d*)\z/, "mode" => /\A[0-7]{1,4}\z/, "backlog" => /\A[1-9]\d*\z/ }.freeze
    BUNDLE_NAMES = %w[h1 h2 h3].freeze

    module_function

    # An Integer >= +min+ from an Integer or a decimal String (config files often pass ENV values).
    def integer(what, value, min: 0)
      number = case value
               when Integer then value
               when /\A\s*\d+\s*\z/ then Integer(value.strip, 10)
               end
      raise ConfigError, "#{what}: expected an integer >= #{min}, got #{value.inspect}" if number.nil? || number < min

      number
    end

    # An Integer >= 1, as #integer (sizes and counts that cannot be 0).
    def positive_integer(what, value)
      integer(what, value, min: 1)
    end

    # An Integer >= 0, as #integer (0 switches the setting off).
    def non_negative_integer(what, value)
      integer(what, value)
    end

    # A worker count: an integer as #integer, or puma's :auto / "auto" (7.2), the number of processors.
    def workers(what, value)
      return Etc.nprocessors if [:auto, "auto"].include?(value)

      integer(what, value)
    end

    # A positive number of seconds (Integer or Float, or a numeric String), as whole seconds: a fraction
    # rounds up, so 0.5 means 1 and never 0 (which the host would read as "no timeout").
    def seconds(what, value)
      number = case value
               when Integer, Float then value
               when /\A\s*\d+\s*\z/ then Integer(value.strip, 10)
               when /\A\s*\d+\.\d+\s*\z/ then Float(value)
               end
      unless number.is_a?(Numeric) && number.positive? && number.finite?
        raise ConfigError, "#{what}: expected a positive number of seconds, got #{value.inspect}"
      end

      number.ceil
    end

    # A TCP port 0..65535.
    def port(what, value)
      number = integer(what, value)
      raise ConfigError, "#{what}: expected a port 0..65535, got #{value.inspect}" if number > 65_535

      number
    end

    # A tcp://HOST:PORT URI (IPv6 hosts in brackets).
    def bind(what, value)
      match = BIND.match(value.to_s) if value.is_a?(String)
      unless match && match[:port].to_i <= 65_535
        raise ConfigError, "#{what}: expected tcp://HOST:PORT, got #{value.inspect}"
      end

      value
    end

    # True when +host+ (a name or address literal, IPv6 without brackets) is this machine by its literal
    # spelling: localhost, 127.0.0.0/8 or ::1. Names are never resolved (the host refuses the same rule).
    def loopback_host?(host)
      return true if host.casecmp?("localhost")

      address = Addrinfo.getaddrinfo(host, nil, nil, :STREAM, nil, Socket::AI_NUMERICHOST).first
      address.ipv4_loopback? || address.ipv6_loopback?
    rescue SocketError
      false
    end

    # A listener: tcp://HOST:PORT as #bind, ssl://HOST:PORT[?cert=PATH&key=PATH] (puma's syntax; a
    # missing cert/key is filled in by Configuration from --tls-cert/--tls-key or the development
    # certificate), or unix://PATH[?umask=..&mode=..&backlog=..] (UNIX_BIND).
    def listen_bind(what, value)
      return unix_bind(what, value) if value.is_a?(String) && value.start_with?("unix://")
      return bind(what, value) unless value.is_a?(String) && value.start_with?("ssl://")

      match = SSL_BIND.match(value)
      unless match && match[:port].to_i <= 65_535
        raise ConfigError, "#{what}: expected ssl://HOST:PORT?cert=PATH&key=PATH, got #{value.inspect}"
      end

      ssl_params(what, value).each do |name, param|
        raise ConfigError, "#{what}: unknown ssl:// parameter #{name.inspect} in #{value.inspect}" unless SSL_PARAMS.include?(name)
        if name == "verify_mode" && param != "none"
          raise ConfigError, "#{what}: only verify_mode=none is supported, got #{value.inspect}"
        end
      end
      value
    end

    # A unix://PATH bind with puma's umask/mode/backlog parameters (UNIX_BIND).
    def unix_bind(what, value)
      match = UNIX_BIND.match(value)
      raise ConfigError, "#{what}: expected unix://PATH (a socket file), got #{value.inspect}" unless match

      URI.decode_www_form(match[:query] || "").each do |name, param|
        format = UNIX_PARAMS[name]
        raise ConfigError, "#{what}: unknown unix:// parameter #{name.inspect} in #{value.inspect}" unless format
        raise ConfigError, "#{what}: bad #{name} #{param.inspect} in #{value.inspect}" unless format.match?(param)
      end
      value
    end

    # puma's bind_to_activated_sockets value: true, false or "only" (:only too).
    def activated_sockets(what, value)
      return value if [true, false].include?(value)
      return "only" if value.to_s == "only"

      raise ConfigError, "#{what}: expected true, false or \"only\", got #{value.inspect}"
    end

    # The query parameters of an ssl:// bind as a Hash of Strings.
    def ssl_params(_what, value)
      query = SSL_BIND.match(value)&.[](:query)
      query.nil? || query.empty? ? {} : URI.decode_www_form(query).to_h
    end

    # "ssl://HOST:PORT?cert=..&key=.." with the values URL-encoded; nil values are left out.
    def ssl_bind_uri(host, port, cert: nil, key: nil)
      host = host.to_s
      host = "[#{host}]" if host.include?(":") && !host.start_with?("[")
      query = URI.encode_www_form({ "cert" => cert, "key" => key }.compact.transform_values(&:to_s))
      "ssl://#{host}:#{port}#{query.empty? ? '' : "?#{query}"}"
    end

    # Protocol bundle short names, in a canonical order; h1 is required (it owns every TCP listener).
    def bundles(what, names)
      names = names.map { |n| n.is_a?(Symbol) ? n.to_s : n }
      unknown = names.reject { |n| BUNDLE_NAMES.include?(n) }
      raise ConfigError, "#{what}: unknown bundle #{unknown.first.inspect} (expected some of #{BUNDLE_NAMES.join(', ')})" unless unknown.empty?
      raise ConfigError, "#{what}: h1 is required (it owns the TCP listeners), got #{names.inspect}" unless names.include?("h1")

      BUNDLE_NAMES & names
    end

    # "tcp://HOST:PORT" for +port+ on +host+ (IPv6 addresses get brackets).
    def bind_for_port(what, port_value, host = "0.0.0.0")
      host = host.to_s
      raise ConfigError, "#{what}: expected a host name or address, got #{host.inspect}" if host.empty?

      host = "[#{host}]" if host.include?(":") && !host.start_with?("[")
      bind(what, "tcp://#{host}:#{port(what, port_value)}")
    end

    # true or false, nothing else (a typo like `log_requests "no"` would otherwise read as true).
    def boolean(what, value)
      raise ConfigError, "#{what}: expected true or false, got #{value.inspect}" unless [true, false].include?(value)

      value
    end

    # A non-empty String (Symbols allowed, e.g. environment :production).
    def string(what, value)
      value = value.to_s if value.is_a?(Symbol)
      raise ConfigError, "#{what}: expected a non-empty string, got #{value.inspect}" unless value.is_a?(String) && !value.empty?

      value
    end

    LOG_FORMATS = %w[text json].freeze

    # "text" or "json" (Symbols allowed).
    def log_format(what, value)
      one_of(what, value, LOG_FORMATS)
    end

    # "batch" or "normal" (Symbols allowed): the CPU scheduling policy of the worker processes.
    def worker_scheduling(what, value)
      one_of(what, value, Worker::Scheduling::POLICIES.keys)
    end

    # +value+ as a String when it is one of +choices+ (a Symbol names its String).
    def one_of(what, value, choices)
      value = value.to_s if value.is_a?(Symbol)
      raise ConfigError, "#{what}: expected one of #{choices.join(', ')}, got #{value.inspect}" unless choices.include?(value)

      value
    end

    # A positive duration in seconds (Float) from a number of seconds or a String "250ms", "1.5s", "2":
    # unlike #seconds, fractions are kept (queue-time targets are milliseconds).
    def duration(what, value)
      number = case value
               when Integer, Float then value.to_f
               when /\A\s*(\d+(?:\.\d+)?)\s*ms\s*\z/ then Float(Regexp.last_match(1)) / 1000
               when /\A\s*(\d+(?:\.\d+)?)\s*s?\s*\z/ then Float(Regexp.last_match(1))
               end
      unless number.is_a?(Float) && number.positive? && number.finite?
        raise ConfigError, "#{what}: expected a positive duration (seconds, or \"250ms\"), got #{value.inspect}"
      end

      number
    end

    # An absolute request path ("/health").
    def path(what, value)
      raise ConfigError, "#{what}: expected a path starting with /, got #{value.inspect}" unless value.is_a?(String) && value.start_with?("/") && !value.match?(/[\s?#]/)

      value
    end

    # [min, max] threads from "MIN:MAX" or "MAX" (flags) or two Integers (file).
    def threads(what, min, max)
      min = integer(what, min)
      max = integer(what, max, min: 1)
      raise ConfigError, "#{what}: min #{min} is greater than max #{max}" if min > max

      [min, max]
    end
  end
end
