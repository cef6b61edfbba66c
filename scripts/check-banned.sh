#!/bin/sh
# Fails when a banned C function (curl's list) appears in our sources.
cd "$(dirname "$0")/.." || exit 2
hits=$(git ls-files '*.c' '*.h' 2>/dev/null | xargs -r grep -nE '\b(sprintf|vsprintf|strcpy|strcat|strncpy|gets|strtok|atoi)[[:space:]]*\(' 2>/dev/null)
if [ -n "$hits" ]; then
  echo "banned functions in use (use snprintf, explicit lengths, strtol with end checks):" >&2
  echo "$hits" >&2
  exit 1
fi
exit 0
