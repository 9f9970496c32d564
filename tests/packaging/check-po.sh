#!/bin/sh
# Checks the translation sources (suite 'data'):
#  1. po/POTFILES.in lists every source file with translatable strings
#     (_("..."), N_("..."), C_(), NC_(), ngettext, translatable="yes" in .ui
#     files, the desktop file and metainfo, a schema with a gettext-domain)
#     and every file it lists exists;
#  2. a .pot extracted now from those files regenerates without errors;
#  3. every po/<lang>.po in LINGUAS is valid (msgfmt -c) and complete
#     against that fresh .pot: no untranslated and no fuzzy message.
# Usage: check-po.sh SOURCE_ROOT          run the checks (TAP)
#        check-po.sh SOURCE_ROOT --list   print the files POTFILES.in needs
#                                         (po/update-potfiles.sh uses it)
set -eu

src=${1:?usage: check-po.sh SOURCE_ROOT [--list]}
cd "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
n=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
notok () { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }

# 1. POTFILES.in against the tree.
grep -v '^[[:space:]]*\(#\|$\)' po/POTFILES.in | sort -u > "$tmp/listed"
{
  grep -rlE '(^|[^A-Za-z0-9_])((N?C?_|ngettext)[[:space:]]*\([[:space:]]*"|g_dn?gettext[[:space:]]*\()' \
    --include='*.c' --include='*.h' src 2>/dev/null || true
  grep -rl 'translatable="yes"' --include='*.ui' src ui 2>/dev/null || true
  find data -maxdepth 1 \( -name '*.desktop.in' -o -name '*.metainfo.xml.in' \) 2>/dev/null
  # A schema with a gettext-domain has translated summaries and descriptions
  # (dconf-editor and GNOME's settings tools show them).
  grep -l 'gettext-domain=' data/*.gschema.xml 2>/dev/null || true
} | sort -u > "$tmp/found"
if [ "${2:-}" = --list ]; then
  cat "$tmp/found"
  exit 0
fi
missing=$(comm -13 "$tmp/listed" "$tmp/found")
if [ -n "$missing" ]; then
  notok "po/POTFILES.in misses files with translatable strings:" $missing
else
  ok "po/POTFILES.in lists all $(wc -l < "$tmp/found") files with translatable strings"
fi
gone=""
while IFS= read -r f; do
  [ -f "$f" ] || gone="$gone $f"
done < "$tmp/listed"
if [ -n "$gone" ]; then
  notok "po/POTFILES.in lists files that do not exist:$gone"
else
  ok "every file in po/POTFILES.in exists"
fi

# 2. A fresh .pot, with the keywords of meson's 'glib' gettext preset.
if xgettext --files-from=po/POTFILES.in --directory=. --output="$tmp/rdmatop.pot" \
     --from-code=UTF-8 --add-comments --package-name=rdmatop \
     --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
     --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
     --flag=N_:1:pass-c-format --flag=C_:2:pass-c-format --flag=NC_:2:pass-c-format \
     --flag=g_strdup_printf:1:c-format --flag=g_set_error:4:c-format \
     --flag=g_error_new:3:c-format --flag=g_string_append_printf:2:c-format \
     2> "$tmp/xgettext.err"; then
  total=$(msgattrib --no-obsolete "$tmp/rdmatop.pot" | grep -c '^msgid ' || true)
  ok "rdmatop.pot regenerates ($((total - 1)) messages)"
else
  notok "xgettext failed: $(cat "$tmp/xgettext.err")"
  exit 1
fi
if [ -s "$tmp/xgettext.err" ]; then
  # A warning here usually means a msgid that cannot match at run time,
  # such as _("... %" G_GUINT64_FORMAT) (a macro pasted into the msgid).
  echo "# xgettext warnings:"
  sed 's/^/#   /' "$tmp/xgettext.err"
fi

# 3. Each language: valid and complete against the fresh .pot.
for lang in $(grep -v '^[[:space:]]*\(#\|$\)' po/LINGUAS); do
  po="po/$lang.po"
  if ! stats=$(LC_ALL=C msgfmt -c --statistics -o /dev/null "$po" 2>&1); then
    notok "$po is not valid: $stats"
    continue
  fi
  ok "$po is valid: $stats"
  msgmerge --quiet --no-fuzzy-matching -o "$tmp/$lang.po" "$po" "$tmp/rdmatop.pot"
  stats=$(LC_ALL=C msgfmt -c --statistics -o /dev/null "$tmp/$lang.po" 2>&1)
  untranslated=$(msgattrib --no-wrap --untranslated --no-obsolete "$tmp/$lang.po" | grep -c '^msgid ' || true)
  fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$tmp/$lang.po" | grep -c '^msgid ' || true)
  # msgattrib prints the header entry too whenever it prints anything.
  [ "$untranslated" -gt 0 ] && untranslated=$((untranslated - 1))
  [ "$fuzzy" -gt 0 ] && fuzzy=$((fuzzy - 1))
  if [ "$untranslated" -eq 0 ] && [ "$fuzzy" -eq 0 ]; then
    ok "$po is complete against the current sources ($stats)"
  else
    notok "$po against the current sources: $untranslated untranslated, $fuzzy fuzzy ($stats); run 'ninja rdmatop-update-po' and translate:"
    msgattrib --no-wrap --untranslated --no-obsolete "$tmp/$lang.po" | grep '^msgid ' | tail -n +2 | sed 's/^/#   /'
  fi
done

echo "1..$n"
exit $fail
