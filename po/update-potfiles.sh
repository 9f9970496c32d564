#!/bin/sh
# Rewrites po/POTFILES.in from the tree: every file with translatable
# strings, found the same way the 'po' test checks it.
# Usage: po/update-potfiles.sh   (from anywhere)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
list=$(sh "$top/tests/packaging/check-po.sh" "$top" --list)
{
  echo "# Files with translatable strings, one per line (paths from the source root)."
  echo "# Regenerate with po/update-potfiles.sh; the 'po' test in suite data fails"
  echo "# when a file with translatable strings is missing here."
  echo "$list"
} > "$top/po/POTFILES.in"
echo "po/POTFILES.in: $(echo "$list" | wc -l) files"
