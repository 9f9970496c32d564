"""Builds librdmatop from the rdmatop checkout this folder is part of and
ships it inside the package (rdmatop/librdmatop.so.1), so that
``pip install ./python`` gives a working package on a machine with the
build dependencies (tests/deps.sh).

RDMATOP_MESON_BUILDDIR names an existing build directory to use instead of
a fresh one.  Without the checkout (an sdist on its own), nothing is built
and the package finds an installed librdmatop.so.1 at run time."""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SONAME = "librdmatop.so.1"


def build_library(tmp):
    """The path of a freshly built librdmatop.so.1, or None without a checkout."""
    if not os.path.exists(os.path.join(ROOT, "src", "lib", "rdmatop.h")):
        return None
    builddir = os.environ.get("RDMATOP_MESON_BUILDDIR")
    if not builddir:
        builddir = os.path.join(tmp, "meson-build")
        if not os.path.exists(os.path.join(builddir, "build.ninja")):
            subprocess.check_call(["meson", "setup", builddir, ROOT, "-Dgui=disabled",
                                   "-Dvm_tests=false", "-Dpython=disabled",
                                   "--buildtype=release"])
    subprocess.check_call(["meson", "compile", "-C", builddir, "src/lib/rdmatop:shared_library"])
    return os.path.join(builddir, "src", "lib", SONAME)


class BuildWithLibrary(build_py):
    """build_py, plus librdmatop.so.1 copied into the package."""

    def run(self):
        super().run()
        lib = build_library(os.path.abspath(self.get_finalized_command("build").build_temp))
        if lib is not None:
            dest = os.path.join(self.build_lib, "rdmatop", SONAME)
            shutil.copyfile(os.path.realpath(lib), dest)


class BinaryDistribution(Distribution):
    """A wheel for this platform: it carries a shared library."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
