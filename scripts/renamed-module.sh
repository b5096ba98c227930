#!/usr/bin/env bash
# Runs sim's tests in a copy of the repository whose module path is renamed,
# as a fork, a vendored copy or an internal copy would have it: sim must find
# its own frames by what it derives at init, never by the module path it was
# written under. Only go.mod's module line and import lines are rewritten, so
# a path hard-coded anywhere else still breaks the copy's tests.
#
# Usage: scripts/renamed-module.sh [new module path] [packages...]
set -euo pipefail
cd "$(dirname "$0")/.."

old=$(go list -m)
new=${1:-example.org/fork/gpusim-copy}
shift || true
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./sim/)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The tracked files and the untracked ones git does not ignore: the working
# tree as it stands.
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] || continue
  mkdir -p "$tmp/$(dirname "$f")"
  cp -p "$f" "$tmp/$f"
done

cd "$tmp"
sed -i -E "s#^module ${old}\$#module ${new}#" go.mod
q=$(printf '%s' "$old" | sed 's/[.]/\\./g')
# An import line: an optional name, the quoted path, nothing else (a
# constant or string literal that holds the path is left alone).
find . -name '*.go' -print0 | xargs -0 sed -i -E \
  -e "s#^(import[[:space:]]+([A-Za-z_][A-Za-z0-9_]*[[:space:]]+)?)\"${q}(/[^\"]*)?\"[[:space:]]*\$#\1\"${new}\3\"#" \
  -e "s#^([[:space:]]+([A-Za-z_.][A-Za-z0-9_]*[[:space:]]+)?)\"${q}(/[^\"]*)?\"[[:space:]]*\$#\1\"${new}\3\"#"
if grep -rqE "^[[:space:]]+\"${q}(/|\")" --include='*.go' .; then
  echo "renamed-module: import lines left unrewritten" >&2
  exit 1
fi
echo "renamed-module: $old -> $new in $tmp"
go vet "${pkgs[@]}"
go test -count=1 "${pkgs[@]}"
