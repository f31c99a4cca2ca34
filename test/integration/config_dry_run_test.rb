# `puma-plus --dry-run` from the command line: the Rails example's config/puma.rb resolved against the
# environment, each value with its source, exit 0, nothing started; a broken file exits 1 naming file and line.
require "server_helper"

class ConfigDryRunTest < IntegrationTest
  RAILS = File.join(PumaPlusServer::ROOT, "examples/rails")

  def dry_run(*args, env: {}, chdir: RAILS)
    output = IO.popen(env, [PumaPlusServer::EXE, "--dry-run", *args], chdir: chdir, err: %i[child out], &:read)
    [$?.exitstatus, output]
  end

  def test_dry_run_prints_each_value_and_its_source_and_exits_0
    status, output = dry_run("-C", "config/puma.rb", "-t", "2:3",
                             env: { "WEB_CONCURRENCY" => "3", "PORT" => "4000", "RAILS_ENV" => "production" })
    assert_equal 0, status, output
    assert_match(%r{^  workers +3 +config/puma\.rb:\d+$}, output) # the file reads WEB_CONCURRENCY itself
    assert_match(%r{^  binds +\["tcp://0\.0\.0\.0:4000"\] +config/puma\.rb:\d+$}, output)
    assert_match(/^  threads +3 +flag --threads$/, output)
    assert_match(/^  environment +"production" +config\/puma\.rb:\d+$/, output)
    assert_match(/^  shutdown_timeout +30 +default$/, output)
    assert_match(/^plugins: tmp_restart$/, output) # puma's own plugin, loaded (docs/CONFIG.md "Plugins")
    refute_match(/^unsupported:/, output)
    assert_match(/^java: .* \(Java \d+\)$/, output)
  end

  def test_dry_run_exits_1_naming_an_unknown_directive_with_file_and_line
    dir = temp_dir
    File.write(File.join(dir, "c.rb"), "threads 1, 1\nthread 2\n")
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    status, output = dry_run("-C", "c.rb", chdir: dir)
    assert_equal [1, "puma-plus: c.rb:2: unknown directive \"thread\"\n"], [status, output]
  end
end
