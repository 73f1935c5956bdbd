# Sourced before each shell example of README.md and docs/ (test/runtimes/docs-examples.test.ts).
# Any error stops the example; any 4xx or 5xx from curl fails it (curl refuses -f beside
# --fail-with-body, so an example's own -f is dropped); each answer ends its own line.
set -euo pipefail
curl() {
  local args=() a
  for a in "$@"; do
    if [[ $a =~ ^-[A-Za-z]+$ && $a == *f* ]]; then
      a=${a//f/}
      [[ $a == - ]] && continue
    fi
    [[ $a == --fail ]] && continue
    args+=("$a")
  done
  command curl --fail-with-body --silent --show-error --max-time 30 "${args[@]}"
  echo
}
