#!/usr/bin/env python3
# Proves that a translation reaches the user (suite 'data'), with the .mo
# files of this build:
#  1. gettext(1) finds the built catalog and returns the translation;
#  2. the merged .desktop file carries the translated Name and Comment;
#  3. rdmatop-cli --help, run with LANGUAGE=<lang>, prints translated text;
#  4. the rdmatop window, run under Xvfb with LANGUAGE=<lang>, shows
#     translated text to AT-SPI (what a screen reader reads), and none of
#     the English strings it has a translation for.
# The binaries find the build's catalogs through RDMATOP_LOCALEDIR.
#
# Usage: check-translation.py --source-root DIR --podir BUILD/po
#          --desktop FILE --cli EXE [--gui EXE] [--lang de]

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

results = []


def report(ok, what):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), what))


def skip(what):
    results.append(True)
    print("ok %d # SKIP %s" % (len(results), what))


def unquote(s):
    s = s.strip()
    if not (s.startswith('"') and s.endswith('"')):
        raise ValueError("bad PO string: %r" % s)
    body = s[1:-1]
    out, i = [], 0
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append(escapes.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def parse_po(path):
    """Returns a list of dicts: msgid, msgstr (first form), refs, fuzzy."""
    entries, cur, key = [], None, None

    def flush():
        if cur and "msgid" in cur and cur["msgid"]:
            entries.append(cur)

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#~") or not line.strip():
                if not line.strip():
                    flush()
                    cur, key = None, None
                continue
            if cur is None:
                cur = {"refs": [], "fuzzy": False}
            if line.startswith("#:"):
                cur["refs"] += [r.rsplit(":", 1)[0] for r in line[2:].split()]
            elif line.startswith("#,"):
                cur["fuzzy"] = "fuzzy" in line
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                cur[key] = cur.get(key, "") + unquote(line)
            else:
                m = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")$', line)
                if not m:
                    raise ValueError("%s: cannot parse %r" % (path, line))
                key = m.group(1)
                if key == "msgstr[0]":
                    key = "msgstr"
                cur[key] = unquote(m.group(3))
    flush()
    return entries


def lang_env(opts):
    env = dict(os.environ)
    for var in ("LC_ALL", "LC_MESSAGES"):
        env.pop(var, None)
    # LANGUAGE is ignored under the plain C locale; C.UTF-8 is always there.
    env.update(LANG="C.UTF-8", LANGUAGE=opts.lang, RDMATOP_LOCALEDIR=opts.podir)
    return env


def translated(entries, prefixes):
    return [e for e in entries
            if e.get("msgstr") and e["msgstr"] != e["msgid"] and not e["fuzzy"]
            and any(r.startswith(p) for r in e["refs"] for p in prefixes)]


def plain_lines(text):
    """Lines of a message that can be matched literally in output."""
    return [ln.strip() for ln in text.split("\n")
            if len(ln.strip()) >= 4 and "%" not in ln]


def check_mo(opts, entries):
    mo = os.path.join(opts.podir, opts.lang, "LC_MESSAGES", "rdmatop.mo")
    if not os.path.isfile(mo):
        report(False, "built catalog %s exists" % mo)
        return
    sample = translated(entries, ("data/",))
    if not sample:
        report(False, "%s.po translates the desktop file's strings" % opts.lang)
        return
    env = lang_env(opts)
    env["TEXTDOMAINDIR"] = opts.podir
    e = sample[0]
    out = subprocess.run(["gettext", "-d", "rdmatop", e["msgid"]], env=env,
                         capture_output=True, text=True, timeout=30).stdout
    report(out == e["msgstr"], "gettext(1) reads the built %s: %r -> %r" % (mo, e["msgid"], out))


def check_desktop(opts, entries):
    by_id = {e["msgid"]: e["msgstr"] for e in entries}
    with open(opts.desktop, encoding="utf-8") as f:
        lines = dict(ln.rstrip("\n").split("=", 1) for ln in f if "=" in ln)
    for key in ("Comment", "GenericName"):
        want = by_id.get(lines.get(key, ""))
        got = lines.get("%s[%s]" % (key, opts.lang))
        report(want is not None and got == want,
               "%s has %s[%s]=%s" % (os.path.basename(opts.desktop), key, opts.lang, got))


def check_cli(opts, entries):
    expect = [ln for e in translated(entries, ("src/cli/",)) for ln in plain_lines(e["msgstr"])]
    if not expect:
        report(False, "%s.po has translated rdmatop-cli messages" % opts.lang)
        return
    proc = subprocess.run([opts.cli, "--help"], env=lang_env(opts),
                          capture_output=True, text=True, timeout=30)
    out = proc.stdout + proc.stderr
    seen = [ln for ln in expect if ln in out]
    report(bool(seen), "rdmatop-cli --help under LANGUAGE=%s prints %d translated lines%s"
           % (opts.lang, len(seen), (", e.g. %r" % seen[0]) if seen else
              " (does it bind the domain to $RDMATOP_LOCALEDIR?):\n" + out))


def start(argv, env, **kw):
    return subprocess.Popen(argv, env=env, start_new_session=True, **kw)


def stop(proc):
    if proc and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def find_gi_python():
    for py in ("python3", "/usr/bin/python3", sys.executable):
        if shutil.which(py) and subprocess.run([py, "-c", "import gi"],
                                               capture_output=True).returncode == 0:
            return py
    return None


def read_display(proc):
    line = proc.stdout.readline().strip()
    return ":" + line if line else None


def gui_names(opts, tmp):
    """Runs the GUI in a private X server and session bus; returns the
    accessible names of its window, or raises RuntimeError."""
    missing = [p for p in ("Xvfb", "dbus-daemon", "/usr/libexec/at-spi-bus-launcher")
               if not shutil.which(p)]
    py = find_gi_python()
    if missing or not py:
        raise RuntimeError("needs %s" % ", ".join(missing + ([] if py else ["python3-gi"])))
    env = lang_env(opts)
    env.update(GTK_A11Y="atspi", GSETTINGS_BACKEND="memory", XDG_RUNTIME_DIR=tmp,
               HOME=tmp, GSK_RENDERER="cairo", GDK_BACKEND="x11")
    env.pop("NO_AT_BRIDGE", None)
    env.pop("WAYLAND_DISPLAY", None)
    if opts.schema_dir:
        env["GSETTINGS_SCHEMA_DIR"] = opts.schema_dir
    procs = []
    try:
        xvfb = start(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24",
                      "-nolisten", "tcp"], env, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True)
        procs.append(xvfb)
        env["DISPLAY"] = read_display(xvfb)
        bus = start(["dbus-daemon", "--session", "--nofork", "--print-address=1"], env,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        procs.append(bus)
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
        procs.append(start(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"],
                           env, stderr=subprocess.DEVNULL))
        time.sleep(1)
        app = start([opts.gui], env, stdout=subprocess.DEVNULL,
                    stderr=open(os.path.join(tmp, "gui.log"), "w"))
        procs.append(app)
        walker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "a11y-names.py")
        res = subprocess.run([py, walker, str(app.pid), "30"], env=env,
                             capture_output=True, text=True, timeout=90)
        if app.poll() is not None:
            with open(os.path.join(tmp, "gui.log")) as f:
                raise RuntimeError("rdmatop exited with %s: %s" % (app.returncode, f.read()))
        if res.returncode != 0:
            raise RuntimeError(res.stderr.strip())
        return res.stdout.splitlines()
    finally:
        for p in reversed(procs):
            stop(p)


def check_gui(opts, entries):
    if not opts.gui:
        skip("the GUI was not built (-Dgui=disabled or no GTK 4)")
        return
    ui_entries = translated(entries, ("src/app/", "ui/"))
    if not ui_entries:
        report(False, "%s.po has translated GUI messages" % opts.lang)
        return
    with tempfile.TemporaryDirectory(prefix="rdmatop-l10n-") as tmp:
        try:
            names = gui_names(opts, tmp)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as err:
            report(False, "rdmatop window under LANGUAGE=%s: %s" % (opts.lang, err))
            return
    shown = set(names)
    german = sorted({e["msgstr"] for e in ui_entries if e["msgstr"] in shown})
    english = sorted({e["msgid"] for e in ui_entries if e["msgid"] in shown})
    report(bool(german), "rdmatop window under LANGUAGE=%s shows %d translated texts: %s"
           % (opts.lang, len(german), ", ".join(repr(g) for g in german[:6])))
    report(not english, "rdmatop window shows no untranslated text it has a translation for%s"
           % ((": " + ", ".join(repr(e) for e in english)) if english else ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--podir", required=True)
    parser.add_argument("--desktop", required=True)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--gui")
    parser.add_argument("--schema-dir")
    parser.add_argument("--lang", default="de")
    opts = parser.parse_args()

    entries = parse_po(os.path.join(opts.source_root, "po", opts.lang + ".po"))
    check_mo(opts, entries)
    check_desktop(opts, entries)
    check_cli(opts, entries)
    check_gui(opts, entries)
    print("1..%d" % len(results))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
