"""The container image (Dockerfile) carries what the binary needs: its build stage installs the
build packages of scripts/install-deps.sh, and its runtime stage the package of every library the
binary links, and libcurl's, which it loads when a remote path is first used, and nothing more.
(CI has no
container engine to build the image; this keeps the file in step with the build.)"""

import os
import re
import shutil
import subprocess
import unittest

import tmtest

# In every Debian image (apt needs them), so the runtime stage need not name them.
IN_EVERY_IMAGE = {"libc6", "libgcc-s1", "libstdc++6"}
# Build packages the image does not need: it builds without tests and benchmarks.
TEST_ONLY = {"libgtest-dev", "libgmock-dev", "libbenchmark-dev"}
# Runtime packages the binary does not link: the certificates libcurl's TLS checks servers
# against, and libcurl itself (loaded by name).
RUNTIME_UNLINKED = {"ca-certificates", "libcurl4"}


def stages(dockerfile):
    """{stage name: the packages its `apt-get install` names}."""
    with open(dockerfile) as f:
        text = f.read().replace("\\\n", " ")
    found = {}
    for block in re.split(r"^FROM ", text, flags=re.M)[1:]:
        name = block.split("\n", 1)[0].split()[-1]
        packages = set()
        for m in re.finditer(r"apt-get install ([^&\n]*)", block):
            packages |= {w for w in m.group(1).split() if not w.startswith("-")}
        found[name] = packages
    return found


def build_packages(install_deps):
    with open(install_deps) as f:
        text = f.read()
    m = re.search(r"^BUILD=\(([^)]*)\)", text, flags=re.M)
    return set(m.group(1).split())


def spellings(path):
    """The paths by which dpkg may know a library file (they differ by the /usr merge)."""
    real = os.path.realpath(path)
    return [path, real, "/usr" + path, "/usr" + real, path.removeprefix("/usr"),
            real.removeprefix("/usr")]


def owners(paths):
    """{path: the Debian package that installed it} in one dpkg query (it is slow to start)."""
    queries = sorted({s for p in paths for s in spellings(p)})
    out = subprocess.run(["dpkg", "-S"] + queries, capture_output=True, text=True).stdout
    by_spelling = {}
    for line in out.splitlines():
        package, _, file = line.partition(": ")
        if ", " not in package and not line.startswith("diversion"):
            by_spelling[file.strip()] = package.split(":")[0]
    return {p: next((by_spelling[s] for s in spellings(p) if s in by_spelling), None)
            for p in paths}


class PackagingTest(unittest.TestCase):
    def setUp(self):
        self.dockerfile = os.path.join(tmtest.SOURCE_DIR, "Dockerfile")
        self.stages = stages(self.dockerfile)
        self.assertEqual(sorted(self.stages), ["build", "runtime"])

    def test_the_build_stage_installs_the_build_packages(self):
        wanted = build_packages(os.path.join(tmtest.SOURCE_DIR, "scripts", "install-deps.sh"))
        self.assertIn("libcurl4-openssl-dev", wanted)
        self.assertEqual(sorted(wanted - TEST_ONLY - self.stages["build"]), [])

    def test_the_runtime_stage_installs_every_library_the_binary_loads(self):
        for tool in ("dpkg", "ldd", "objdump"):
            if shutil.which(tool) is None:
                self.skipTest("%s is not installed (Debian only)" % tool)
        needed = re.findall(r"NEEDED\s+(\S+)",
                            subprocess.run(["objdump", "-p", tmtest.BIN], capture_output=True,
                                           text=True, check=True).stdout)
        self.assertNotIn("libcurl.so.4", needed)  # loaded by name when needed
        paths = dict(re.findall(r"^\s*(\S+) => (/\S+)",
                                subprocess.run(["ldd", tmtest.BIN], capture_output=True,
                                               text=True, check=True).stdout, flags=re.M))
        libs = {name: paths[name] for name in needed}
        libs["libcurl.so.4"] = os.path.join(os.path.dirname(paths["libc.so.6"]), "libcurl.so.4")
        missing = []
        packages = owners(list(libs.values()))
        for name, path in sorted(libs.items()):
            package = packages[path]
            self.assertIsNotNone(package, "%s (%s) belongs to no package" % (name, path))
            if package not in IN_EVERY_IMAGE and package not in self.stages["runtime"]:
                missing.append("%s (%s)" % (package, name))
        self.assertEqual(missing, [], "the Dockerfile's runtime stage lacks these packages")
        # And nothing the binary does not load: every package is pulled by every image build.
        unused = self.stages["runtime"] - set(packages.values()) - RUNTIME_UNLINKED
        self.assertEqual(sorted(unused), [],
                         "the Dockerfile's runtime stage installs packages the binary does not load")


if __name__ == "__main__":
    unittest.main()
