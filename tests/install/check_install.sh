#!/usr/bin/env bash
# Installs the build into a temporary DESTDIR and compares the whole list of installed files with
# what README's "Installation" section promises: the tools, their man pages and bash, zsh and fish
# completions, and nothing else (no test programs).
set -euo pipefail
build=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
DESTDIR="$root" cmake --install "$build" --prefix /usr >/dev/null
actual=$(cd "$root" && find . -type f | sort)
expected=$(for tool in ckpt-inspect dump-compare dump-convert dump-parse ir-to-dot rdr-inspect summary-cat watch-check; do
  printf '%s\n' "./usr/bin/$tool" "./usr/share/bash-completion/completions/$tool" \
    "./usr/share/fish/vendor_completions.d/$tool.fish" "./usr/share/man/man1/$tool.1" \
    "./usr/share/zsh/vendor-completions/_$tool"
done | sort)
if [[ "$actual" != "$expected" ]]; then
  diff -u <(echo "$expected") <(echo "$actual") || true
  exit 1
fi
# The installed tools run from their new place.
for tool in ckpt-inspect dump-compare dump-convert dump-parse ir-to-dot rdr-inspect summary-cat watch-check; do
  version=$("$root/usr/bin/$tool" --version)
  [[ $version == "$tool (msdt) "[0-9]* ]] || { echo "unexpected --version: $version"; exit 1; }
done
