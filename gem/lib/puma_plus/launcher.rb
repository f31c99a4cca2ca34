# frozen_string_literal: true

# What the puma-plus executable does before anything else runs (docs/ARCHITECTURE.md, step 1): find a
# JDK >= 21, check that the Java host has been built into <gem>/vendor/java/lib, and build the command
# line it execs. The Java host it starts then spawns the shepherd. Loads no Rack and no app.

require "rbconfig"
require_relative "version"

module PumaPlus
  class Launcher
    MIN_JAVA = 21
    # From this release on the JDK warns about sun.misc.Unsafe unless told to allow it (Netty uses it).
    UNSAFE_FLAG_SINCE = 23
    BUNDLED_JDK = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
    MAIN_CLASS = "dev.pumaplus.host.boot.Launcher"
    # The signal HotSpot suspends threads with (_JAVA_SR_SIGNUM), a free real-time one: SIGUSR2 is the host's.
    SUSPEND_SIGNAL = 40
    # The host JVM sized for what it holds: connections, one queue, the frames in flight. Each flag's saving
    # and how it was measured: docs/benchmarks/NOTEBOOK.md, "Memory". Flags in JAVA_TOOL_OPTIONS are read before
    # these, so these win over them.
    HOST_JVM_FLAGS = [
      "-XX:+UseSerialGC",                  # a heap of tens of MB: no GC threads, no remembered sets
      "-Xms8m", "-Xmx256m",                # starts small (~8 MB live at idle), grows as far as the live set asks
      "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30", # and gives back what a burst made it take
      "-Xss512k",                          # event loops and Felix's threads run shallow stacks
      "-XX:MaxDirectMemorySize=1g",        # request and response bytes are off-heap: not tied to -Xmx
      "-XX:ReservedCodeCacheSize=32m",     # the hot code (Netty's and the host's) compiles to ~10 MB
      "-XX:CICompilerCount=2",             # one C1 and one C2 thread: their arenas are most of the C heap
      # C2 compiles smaller units: a hot callee of more than 100 bytecodes, or one already compiled to more
      # than 1,000 bytes of code, is called rather than inlined. The request path's largest units (8-11 KB
      # of inlined bytecode) took C2 up to 0.6 s each, on the core the host shares with its workers, and a
      # deopt of any inlinee recompiled the whole unit: the JIT's share of a request 5-16 -> 1-2 us in the
      # first 10 s after a 5 s warm-up, ~1 us more in the steady state (docs/benchmarks/NOTEBOOK.md, "The
      # JIT's unit size").
      "-XX:FreqInlineSize=100", "-XX:InlineSmallCode=1000",
      "-Dio.netty.leakDetection.level=disabled", # no sampled stack trace per 128 buffers (tests keep it)
      "-Dio.netty.jfr.enabled=false",      # Netty's allocator events would load JFR's machinery: ~150 classes
      # The monitor deflation thread looks for idle monitors every 250 ms by default: 4 wake-ups a second
      # of ~70 us each on an idle host, charged to every request at 10 a second. The host inflates few
      # monitors; every 10 s is plenty (a diagnostic flag, in every JDK from 21 to 25).
      "-XX:+UnlockDiagnosticVMOptions", "-XX:AsyncDeflationInterval=10000"
    ].freeze
    # Flags a JDK knows from the release given on: hand malloc's freed arenas (mostly the compilers' scratch
    # memory) back to the OS every 10 s (~12-20 MB under load; each trim costs ~220 us, so not every 2 s),
    # and the service thread's cleanups every 10 s, not every second (~70 us a wake-up on an idle host;
    # diagnostic, checked on 25). Not compact object headers (JDK 25): with them the event loop spent
    # 111-158 us per new connection at 300 a second instead of 102-107 (docs/BENCHMARKS.md, "Light load").
    VERSIONED_FLAGS = {
      "-XX:TrimNativeHeapInterval=10000" => 22,
      "-XX:ServiceThreadCleanupInterval=10000" => 25
    }.freeze

    # From this release on the host's JVM takes an ahead-of-time cache with method profiles (JEP 515).
    AOT_CACHE_SINCE = 25

    # Raised with a message for the user; the executable prints it and exits 1.
    class Error < StandardError; end

    # +gem_dir+: the gem's root (the directory holding exe/, lib/, vendor/).
    def initialize(gem_dir:, env: ENV, ruby: RbConfig.ruby, bundled_jdk: BUNDLED_JDK)
      @gem_dir = gem_dir
      @env = env
      @ruby = ruby
      @bundled_jdk = bundled_jdk
    end

    # The argv to exec for the user's +argv+. Raises Error when no suitable java or no built host.
    def command(argv)
      java = find_java
      major = java_major(java)
      check_host_built!
      flags = []
      flags << "--sun-misc-unsafe-memory-access=allow" if major >= UNSAFE_FLAG_SINCE
      flags << "--enable-native-access=ALL-UNNAMED"
      flags.concat(HOST_JVM_FLAGS)
      VERSIONED_FLAGS.each { |flag, since| flags << flag if major >= since }
      cache = aot_cache(java, major)
      flags << "-XX:AOTCache=#{cache}" if cache
      [java, *flags, "-cp", File.join(@gem_dir, "vendor", "java", "lib", "*"), MAIN_CLASS,
       "--ruby", @ruby, "--gem", @gem_dir, "--", *argv]
    end

    # "PATH (Java MAJOR)" for the java #command would run; raises Error as #command does.
    def find_java_with_version
      java = find_java
      "#{java} (Java #{java_major(java)})"
    end

    # Java tools that run outside a server (docs/CONTROL.md): subcommand => main class in the controller
    # bundle's jar.
    TOOLS = { "replay" => "dev.pumaplus.controller.Replay",
              "simulate" => "dev.pumaplus.controller.sim.Compare" }.freeze

    # The argv to exec for `puma-plus TOOL ARGS` (a TOOLS key): the tool's main on the host's class path
    # plus the controller bundle's jar.
    def tool_command(tool, argv)
      java = find_java
      java_major(java)
      check_host_built!
      classpath = [File.join(@gem_dir, "vendor", "java", "lib", "*"),
                   File.join(@gem_dir, "vendor", "java", "bundles", "controller.jar")].join(File::PATH_SEPARATOR)
      [java, "-cp", classpath, TOOLS.fetch(tool), *argv]
    end

    # The java to run: $JAVA_HOME/bin/java, else the bundled Temurin, else `java` on PATH.
    def find_java
      candidates = []
      candidates << File.join(@env["JAVA_HOME"], "bin", "java") if @env["JAVA_HOME"] && !@env["JAVA_HOME"].empty?
      candidates << @bundled_jdk
      found = candidates.find { |path| File.file?(path) && File.executable?(path) }
      found ||= (@env["PATH"] || "").split(File::PATH_SEPARATOR).map { |dir| File.join(dir, "java") }
                                     .find { |path| File.file?(path) && File.executable?(path) }
      return found if found

      raise Error, "no java found (looked at #{candidates.join(', ')} and PATH); " \
                   "install a JDK #{MIN_JAVA} or newer or set JAVA_HOME"
    end

    # The major version of +java+ (from `java -version`); raises Error when it is older than 21.
    def java_major(java)
      output = IO.popen([java, "-version", { err: %i[child out] }], &:read)
      version = output[/version "([^"]+)"/, 1]
      raise Error, "could not tell the version of #{java} (java -version printed #{output.strip.inspect})" unless version

      parts = version.split(/[.+_-]/)
      major = parts[0] == "1" ? parts[1].to_i : parts[0].to_i
      if major < MIN_JAVA
        raise Error, "#{java} is Java #{version}; puma-plus needs Java #{MIN_JAVA} or newer " \
                     "(set JAVA_HOME to a newer JDK)"
      end

      major
    rescue SystemCallError => e
      raise Error, "could not run #{java} -version: #{e.message}"
    end

    # The host's AOT cache (script/aot-train) when +java+ can use it, else nil: JDK 25 or newer, made by
    # this same java, and neither a jar of the host nor this file (whose flags the cache must match) newer
    # than it. A cache the JVM cannot use costs nothing but error lines on stdout at every start, so a stale
    # one is not passed.
    def aot_cache(java, major)
      return nil if major < AOT_CACHE_SINCE

      cache = File.join(@gem_dir, "vendor", "aot", "host.aot")
      stamp = "#{cache}.java"
      return nil unless File.file?(cache) && File.file?(stamp) && File.read(stamp).strip == java

      made = File.mtime(cache)
      inputs = Dir[File.join(@gem_dir, "vendor", "java", "lib", "*.jar")] << __FILE__
      inputs.all? { |input| File.mtime(input) <= made } ? cache : nil
    end

    def check_host_built!
      lib = File.join(@gem_dir, "vendor", "java", "lib")
      return if File.directory?(lib)

      raise Error, "#{lib} is missing: the Java host has not been built. " \
                   "In a repository checkout, run script/build first."
    end
  end
end
