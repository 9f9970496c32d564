"""Builds librdmatop from the rdmatop checkout this folder is part of and
ships it inside the package (rdmatop/librdmatop.so.1), so that
``pip install ./python`` gives a working package on a machine with the
build dependencies (tests/deps.sh).

Where the installing Python has torch (``pip install --no-build-isolation``
into the training environment), the Kineto child profiler rdmatop._kineto
is compiled against that torch's own Kineto headers and linked to its
libtorch_cpu, as meson's -Dkineto does.  RDMATOP_KINETO=enabled makes a
failure to build it fatal, =disabled skips it; the default builds it when
it can and otherwise leaves rdmatop.kineto.enable() to say why it cannot.

RDMATOP_MESON_BUILDDIR names an existing build directory to use instead of
a fresh one.  Without the checkout (an sdist on its own), no librdmatop is
built and the package finds an installed librdmatop.so.1 at run time."""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SONAME = "librdmatop.so.1"
KINETO_SOURCE = os.path.join("kineto", "rdmatop-kineto.cc")
KINETO_MODES = ("auto", "enabled", "disabled")


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


def kineto_mode():
    mode = os.environ.get("RDMATOP_KINETO", "auto").strip().lower() or "auto"
    if mode not in KINETO_MODES:
        sys.exit("RDMATOP_KINETO must be one of %s, not %r" % (", ".join(KINETO_MODES), mode))
    return mode


def torch_kineto():
    """(include dir, lib dir, C++ ABI flag, version) of the torch this Python
    imports, or a sentence saying why rdmatop._kineto cannot be built
    against it."""
    try:
        import torch
    except Exception as e:  # ImportError, or a torch that fails to load
        return "this Python cannot import torch (%s)" % e
    root = os.path.dirname(torch.__file__)
    header = os.path.join(root, "include", "kineto", "libkineto.h")
    try:
        with open(header, encoding="utf-8", errors="replace") as f:
            has_api = "registerProfilerFactory" in f.read(1 << 20)
    except OSError:
        return "torch %s has no Kineto headers (%s)" % (torch.__version__, header)
    if not has_api:
        return "torch %s's Kineto has no child-profiler API" % torch.__version__
    abi = int(bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    return (os.path.join(root, "include"), os.path.join(root, "lib"), abi, torch.__version__)


def kineto_extension(found):
    inc, lib, abi, version = found
    return Extension(
        "rdmatop._kineto",
        sources=[KINETO_SOURCE],
        language="c++",
        include_dirs=[],
        library_dirs=[lib],
        libraries=["torch_cpu", "c10"],
        runtime_library_dirs=[lib],
        define_macros=[("_GLIBCXX_USE_CXX11_ABI", str(abi)),
                       ("RDMATOP_TORCH_VERSION", '"%s"' % version.replace('"', ""))],
        extra_compile_args=["-std=c++20", "-fvisibility=hidden", "-isystem", inc],
        # Optional unless asked for: without it the package still works,
        # and rdmatop.kineto.enable() says how to get it.
        optional=kineto_mode() != "enabled",
    )


class BuildKineto(build_ext):
    """build_ext that says what it decided about rdmatop._kineto and, in
    place (``pip install -e``, where build_py does not run), also puts
    librdmatop.so.1 into the package folder."""

    def run(self):
        if self.extensions:
            super().run()
        if self.inplace:
            lib = build_library(os.path.abspath(self.build_temp))
            if lib is not None:
                shutil.copyfile(os.path.realpath(lib), os.path.join(HERE, "rdmatop", SONAME))

    def build_extension(self, ext):
        print("rdmatop: building %s against torch in %s" % (ext.name, sys.prefix))
        super().build_extension(ext)


class BinaryDistribution(Distribution):
    """A wheel for this platform: it carries a shared library."""

    def has_ext_modules(self):
        return True


def extensions():
    mode = kineto_mode()
    if mode == "disabled":
        return []
    found = torch_kineto()
    if isinstance(found, str):
        if mode == "enabled":
            sys.exit("RDMATOP_KINETO=enabled, but %s" % found)
        print("rdmatop: not building rdmatop._kineto: %s" % found)
        return []
    return [kineto_extension(found)]


setup(cmdclass={"build_py": BuildWithLibrary, "build_ext": BuildKineto},
      distclass=BinaryDistribution, ext_modules=extensions())
