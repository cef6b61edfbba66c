#!/bin/sh
# Fails when a banned C function (curl's list) appears in our sources, or
# when a file points outside the repository (the project stands alone: what
# a user or maintainer needs is in docs/).
cd "$(dirname "$0")/.." || exit 2
status=0
hits=$(git ls-files '*.c' '*.h' 2>/dev/null | xargs -r grep -nE '\b(sprintf|vsprintf|strcpy|strcat|strncpy|gets|strtok|atoi)[[:space:]]*\(' 2>/dev/null)
if [ -n "$hits" ]; then
  echo "banned functions in use (use snprintf, explicit lengths, strtol with end checks):" >&2
  echo "$hits" >&2
  status=1
fi
# the sibling folder of shared notes the project grew from, spelled in two
# pieces so that this script does not name it itself
sibling='\.\./'"shared"
outside=$(git ls-files 2>/dev/null | xargs -r grep -ln "$sibling" 2>/dev/null)
if [ -n "$outside" ]; then
  echo "these files point outside the repository (the sibling notes folder); put what is needed in docs/:" >&2
  echo "$outside" >&2
  status=1
fi
exit $status
