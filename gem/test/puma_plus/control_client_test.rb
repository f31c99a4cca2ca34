# frozen_string_literal: true

# `puma-plus ctl` finding the control app's token: a token the host generates at boot is in no config file,
# so ctl -C says where to get it instead of sending a request that can only be refused.

require "test_helper"
require "stringio"
require "tmpdir"
require "puma_plus/control_client"

class PumaPlus::ControlClientTest < PumaPlus::TestCase
  def ctl(argv, config)
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "c.rb"), config)
      err = StringIO.new
      status = PumaPlus::ControlClient.run(["-C", "c.rb", *argv], out: StringIO.new, err: err, env: {}, cwd: dir)
      [status, err.string]
    end
  end

  def test_a_config_without_auth_token_sends_ctl_to_the_state_file_or_t_for_the_generated_token
    status, err = ctl(%w[stats], %(activate_control_app "tcp://127.0.0.1:9293"\n))
    assert_equal 1, status
    assert_match(/token is generated at boot: pass -T TOKEN .* or use -S with state_path/, err)
  end
end
