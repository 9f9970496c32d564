#!/bin/sh
# Man pages (suite 'data'): both render without groff warnings, and
# rdmatop-cli(1) documents exactly what `rdmatop-cli --help` offers: every
# command and option in the help is in the page and every option in the
# page exists.
# Usage: check-man.sh DATA_DIR RDMATOP_CLI
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

data=$1 cli=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for page in rdmatop.1 rdmatop-cli.1 rdmatop-askpass.1; do
  if ! command -v groff > /dev/null; then
    skip "groff is not installed"
    break
  fi
  warnings=$(LC_ALL=C.UTF-8 groff -t -man -Tutf8 -ww -z "$data/$page" 2>&1)
  if [ -z "$warnings" ]; then ok "$page renders without warnings"; else notok "$page: $warnings"; fi
done

# Options as the page spells them (\-\-name) and as the help prints them.
sed 's/\\-/-/g' "$data/rdmatop-cli.1" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u > "$tmp/man"
LC_ALL=C.UTF-8 LANGUAGE= "$cli" --help > "$tmp/help" 2>&1
# Commands: the help lists them as indented words at the start of a line
# under a "Commands" heading, or in a usage line.
commands=$(sed -n '/^[[:space:]]*[Cc]ommands/,/^$/p' "$tmp/help" |
           sed -n 's/^[[:space:]]\{1,\}\([a-z][a-z-]*\)\([[:space:]].*\)\{0,1\}$/\1/p')
if [ -z "$commands" ]; then
  notok "rdmatop-cli --help lists no commands:"
  sed 's/^/#   /' "$tmp/help"
fi
for cmd in $commands; do
  if grep -q "^\.B rdmatop-cli $cmd\$" "$data/rdmatop-cli.1"; then
    ok "command $cmd is in rdmatop-cli.1"
  else
    notok "command $cmd is not in the SYNOPSIS of rdmatop-cli.1"
  fi
  LC_ALL=C.UTF-8 LANGUAGE= "$cli" "$cmd" --help >> "$tmp/help" 2>&1
done
grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u > "$tmp/cli"
for opt in $(comm -23 "$tmp/cli" "$tmp/man"); do
  notok "rdmatop-cli offers $opt, rdmatop-cli.1 does not document it"
done
# A documented option the help does not list must still work on its own
# (--version is usually not in the usage text).
for opt in $(comm -13 "$tmp/cli" "$tmp/man"); do
  if LC_ALL=C.UTF-8 "$cli" "$opt" > /dev/null 2>&1; then
    ok "rdmatop-cli.1 documents $opt; --help does not list it, but rdmatop-cli $opt works"
    echo "$opt" >> "$tmp/cli"
  else
    notok "rdmatop-cli.1 documents $opt, which rdmatop-cli does not offer"
  fi
done
sort -u -o "$tmp/cli" "$tmp/cli"
[ -s "$tmp/cli" ] && cmp -s "$tmp/cli" "$tmp/man" &&
  ok "rdmatop-cli.1 and the program agree on $(wc -l < "$tmp/cli") options"
[ -s "$tmp/cli" ] || notok "rdmatop-cli --help shows no options"
finish
