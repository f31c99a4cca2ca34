# The claim that state lives with its owner (STYLE.md §9): no compiled class of the host or of a bundle writes
# a field of another top-level class (nested classes count as their top-level class). script/field-writes
# reads the bytecode `mvn package` left in each module's target/classes, so this runs after the Java build.
require "server_helper"

class OwnershipTest < IntegrationTest
  TEST_TIMEOUT = 60

  def test_no_class_writes_another_class_s_fields
    classes = Dir[File.join(PumaPlusServer::ROOT, "{host,bundles/*}/target/classes")]
    return skip_or_fail("no compiled classes: run script/build first") if classes.empty?
    output = IO.popen([File.join(PumaPlusServer::ROOT, "script/field-writes"), *classes], err: %i[child out], &:read)
    assert $?.success?, "script/field-writes failed:\n#{output}"
    assert_equal "", output, "fields written from outside their class"
  end
end
