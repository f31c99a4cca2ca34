/*
 * The controller-jar endpoint's path rule: a jar loads only from inside controller_jar_dir, judged on real
 * paths, so neither `..` nor a symlink nor a sibling directory sharing the name's prefix leads out of it.
 */
package dev.pumaplus.host.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class ControllerEndpointTest {

    @TempDir
    Path tmp;

    @Test
    void aJarInsideTheDirectoryResolvesToItsRealPath() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("jars"));
        Path jar = Files.writeString(dir.resolve("controller.jar"), "jar");
        Files.createDirectories(dir.resolve("sub"));
        assertEquals(jar.toRealPath(), ControllerEndpoint.inside(dir, jar));
        assertEquals(jar.toRealPath(), ControllerEndpoint.inside(dir, dir.resolve("sub/../controller.jar")),
                "a .. that stays inside is fine");
    }

    @Test
    void dotDotOutOfTheDirectoryIsRefused() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("jars"));
        Files.writeString(tmp.resolve("evil.jar"), "jar");
        assertNull(ControllerEndpoint.inside(dir, dir.resolve("../evil.jar")));
    }

    @Test
    void aSymlinkInsideThatPointsOutsideIsRefused() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("jars"));
        Path outside = Files.writeString(tmp.resolve("evil.jar"), "jar");
        Path link = Files.createSymbolicLink(dir.resolve("controller.jar"), outside);
        assertNull(ControllerEndpoint.inside(dir, link));
    }

    @Test
    void aSiblingDirectoryWhoseNameExtendsTheConfiguredOneIsOutside() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("jars"));
        Path sibling = Files.createDirectories(tmp.resolve("jars-other"));
        assertNull(ControllerEndpoint.inside(dir, Files.writeString(sibling.resolve("c.jar"), "jar")));
    }

    @Test
    void theDirectoryItselfAndMissingFilesAreNotJars() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("jars"));
        assertNull(ControllerEndpoint.inside(dir, dir));
        assertNull(ControllerEndpoint.inside(dir, dir.resolve("missing.jar")));
        assertNull(ControllerEndpoint.inside(tmp.resolve("no-such-dir"), dir));
    }
}
