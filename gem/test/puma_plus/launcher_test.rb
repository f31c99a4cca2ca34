# frozen_string_literal: true

# How puma-plus picks a JDK and builds the java command line (docs/ARCHITECTURE.md step 1). Old JDKs do
# not exist on this machine, so a few tests use a stand-in `java` script that prints a version banner.

require "test_helper"
require "tmpdir"
require "open3"
require "puma_plus/launcher"

class PumaPlus::LauncherTest < PumaPlus::TestCase
  EXE = File.expand_path("../../exe/puma-plus", __dir__)

  def setup
    @dir = Dir.mktmpdir("puma-plus-launcher")
    @gem = File.join(@dir, "gem")
    FileUtils.mkdir_p(File.join(@gem, "vendor", "java", "lib"))
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # A java stand-in at <dir>/<name>/bin/java that prints +banner+ like `java -version` does (on stderr).
  def fake_jdk(name, banner)
    bin = File.join(@dir, name, "bin")
    FileUtils.mkdir_p(bin)
    File.write(File.join(bin, "java"), "#!/bin/sh\necho '#{banner}' >&2\n")
    File.chmod(0o755, File.join(bin, "java"))
    File.join(@dir, name)
  end

  def launcher(env, bundled: "/nonexistent/java")
    PumaPlus::Launcher.new(gem_dir: @gem, env: env, ruby: "/usr/bin/ruby", bundled_jdk: bundled)
  end

  def test_java_home_is_preferred_and_jdk_25_gets_the_unsafe_sizing_trim_and_service_thread_flags
    home = fake_jdk("jdk25", 'openjdk version "25" 2025-09-16')
    command = launcher({ "JAVA_HOME" => home, "PATH" => "" }).command(["-w", "2", "app.ru"])
    assert_equal [File.join(home, "bin", "java"), "--sun-misc-unsafe-memory-access=allow",
                  "--enable-native-access=ALL-UNNAMED", *PumaPlus::Launcher::HOST_JVM_FLAGS,
                  "-XX:TrimNativeHeapInterval=10000", "-XX:ServiceThreadCleanupInterval=10000",
                  "-cp", File.join(@gem, "vendor/java/lib/*"),
                  "dev.pumaplus.host.boot.Launcher", "--ruby", "/usr/bin/ruby", "--gem", @gem, "--", "-w", "2", "app.ru"],
                 command
  end

  def test_jdk_21_gets_no_unsafe_flag
    home = fake_jdk("jdk21", 'openjdk version "21.0.2" 2024-01-16')
    command = launcher({ "JAVA_HOME" => home }).command([])
    refute_includes command, "--sun-misc-unsafe-memory-access=allow"
    refute_includes command, "-XX:TrimNativeHeapInterval=10000", "JDK 21 knows the flag only as experimental"
    refute_includes command, "-XX:ServiceThreadCleanupInterval=10000", "not checked on JDK 21"
    assert_includes command, "--enable-native-access=ALL-UNNAMED"
    assert_includes command, "-XX:+UseSerialGC"
  end

  # A cache as script/aot-train leaves it, made by +java+ at +made+ (jars in lib/ are older by default).
  def aot_cache(java, made: Time.now)
    dir = File.join(@gem, "vendor", "aot")
    FileUtils.mkdir_p(dir)
    cache = File.join(dir, "host.aot")
    File.write(cache, "cache")
    File.write("#{cache}.java", "#{java}\n")
    File.utime(made, made, cache)
    cache
  end

  # A JDK 25 stand-in and a host jar built at +built+; returns the JDK's home and its java.
  def jdk25_and_jar(built: Time.now)
    home = fake_jdk("jdk25", 'openjdk version "25" 2025-09-16')
    jar = File.join(@gem, "vendor", "java", "lib", "host.jar")
    File.write(jar, "jar")
    File.utime(built, built, jar)
    [home, File.join(home, "bin", "java")]
  end

  def test_an_aot_cache_made_by_the_same_jdk_25_after_the_jars_is_passed_to_the_host
    home, java = jdk25_and_jar(built: Time.now - 60)
    cache = aot_cache(java)
    command = launcher({ "JAVA_HOME" => home }).command([])
    assert_includes command, "-XX:AOTCache=#{cache}"
    assert_operator command.index("-XX:AOTCache=#{cache}"), :<, command.index("-cp"), "a JVM flag, before the class path"
  end

  def test_an_aot_cache_is_not_passed_when_stale_made_by_another_java_or_to_jdk_24
    home, java = jdk25_and_jar
    aot_cache(java, made: Time.now - 60)
    refute(launcher({ "JAVA_HOME" => home }).command([]).any? { |flag| flag.start_with?("-XX:AOTCache") },
           "a jar rebuilt after the cache was made: the JVM would refuse the cache with error lines")

    launcher_rb = File.expand_path("../../lib/puma_plus/launcher.rb", __dir__)
    home, java = jdk25_and_jar(built: File.mtime(launcher_rb) - 120)
    aot_cache(java, made: File.mtime(launcher_rb) - 60)
    refute(launcher({ "JAVA_HOME" => home }).command([]).any? { |flag| flag.start_with?("-XX:AOTCache") },
           "the launcher's flags changed after the cache was made: the JVM would refuse it too")

    aot_cache("/another/jdk/bin/java")
    refute(launcher({ "JAVA_HOME" => home }).command([]).any? { |flag| flag.start_with?("-XX:AOTCache") },
           "made by another java")

    home24 = fake_jdk("jdk24", 'openjdk version "24" 2025-03-18')
    aot_cache(File.join(home24, "bin", "java"))
    refute(launcher({ "JAVA_HOME" => home24 }).command([]).any? { |flag| flag.start_with?("-XX:AOTCache") },
           "JDK 24 keeps no method profiles")
  end

  def test_bundled_temurin_is_used_without_java_home_then_path
    bundled = File.join(fake_jdk("temurin", 'openjdk version "25"'), "bin", "java")
    assert_equal bundled, launcher({ "PATH" => "" }, bundled: bundled).find_java
    on_path = File.join(fake_jdk("pathjdk", 'openjdk version "22"'), "bin")
    assert_equal File.join(on_path, "java"), launcher({ "PATH" => on_path }).find_java
  end

  def test_java_older_than_21_is_refused_naming_what_was_found
    home = fake_jdk("jdk17", 'openjdk version "17.0.15" 2025-04-15')
    error = assert_raises(PumaPlus::Launcher::Error) { launcher({ "JAVA_HOME" => home }).command([]) }
    assert_equal "#{home}/bin/java is Java 17.0.15; puma-plus needs Java 21 or newer (set JAVA_HOME to a newer JDK)",
                 error.message
    legacy = fake_jdk("jdk8", 'java version "1.8.0_392"')
    assert_match(/is Java 1\.8\.0_392/, assert_raises(PumaPlus::Launcher::Error) { launcher({ "JAVA_HOME" => legacy }).command([]) }.message)
  end

  def test_no_java_anywhere_is_an_error
    error = assert_raises(PumaPlus::Launcher::Error) { launcher({ "PATH" => @dir }).command([]) }
    assert_match(/no java found/, error.message)
  end

  def test_unbuilt_host_tells_the_user_to_run_script_build
    FileUtils.rm_rf(File.join(@gem, "vendor"))
    home = fake_jdk("jdk25", 'openjdk version "25"')
    error = assert_raises(PumaPlus::Launcher::Error) { launcher({ "JAVA_HOME" => home }).command([]) }
    assert_match(%r{vendor/java/lib is missing.*run script/build}, error.message)
  end

  def test_executable_prints_version_and_help_without_java
    out, status = Open3.capture2e({ "JAVA_HOME" => "/nonexistent" }, RbConfig.ruby, EXE, "--version")
    assert_equal ["puma-plus #{PumaPlus::VERSION} (#{PumaPlus.ruby_description})\n", true], [out, status.success?]
    out, status = Open3.capture2e(RbConfig.ruby, EXE, "-h")
    assert status.success?
    assert_match(/--workers N/, out)
  end

  def test_executable_exits_1_naming_an_old_java
    home = fake_jdk("jdk17", 'openjdk version "17.0.15" 2025-04-15')
    out, status = Open3.capture2e({ "JAVA_HOME" => home }, RbConfig.ruby, EXE, "app.ru")
    assert_equal 1, status.exitstatus
    assert_match(/puma-plus: .*jdk17.*Java 17\.0\.15; puma-plus needs Java 21 or newer/, out)
  end
end
