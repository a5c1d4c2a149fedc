#!/usr/bin/env bash
# Checks deploy/systemd/*.service with `systemd-analyze verify`, failing on ANY output: verify
# reports unknown keys, bad values and missing programs as warnings and still exits 0.
#
# The units run /usr/local/bin/coordinator and /usr/local/bin/worker, and verify needs ExecStart
# to name an existing program. Rather than install binaries into /usr/local/bin of the machine
# running the check, it verifies copies of the units in a scratch directory whose only change is
# that prefix, pointed at the built binaries (COORDINATOR_BIN, WORKER_BIN; default
# target/debug/*). The template worker@.service is verified as systemd instantiates it.
# It also fails if a unit's hardening scores worse than 2.0 on `systemd-analyze security`
# (0 is the best, 10 the worst; --threshold counts in tenths) or if a token could end up in a
# unit.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
COORDINATOR_BIN=${COORDINATOR_BIN:-$repo/target/debug/coordinator}
WORKER_BIN=${WORKER_BIN:-$repo/target/debug/worker}
fail() {
	echo "systemd check FAILED: $*" >&2
	exit 1
}

if ! command -v systemd-analyze >/dev/null; then
	apt-get install -y -qq systemd >/dev/null
fi
for bin in "$COORDINATOR_BIN" "$WORKER_BIN"; do
	[[ -x $bin ]] || fail "$bin is missing: cargo build -p tigers-coordinator -p tigers-worker"
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin"
ln -s "$(realpath "$COORDINATOR_BIN")" "$scratch/bin/coordinator"
ln -s "$(realpath "$WORKER_BIN")" "$scratch/bin/worker"

units=()
for unit in "$repo"/deploy/systemd/*.service; do
	name=$(basename "$unit")
	units+=("$name")
	grep -q '^ExecStart=/usr/local/bin/' "$unit" || fail "$name: ExecStart is not under /usr/local/bin"
	if grep -nE '^[^#]*(--token|TIGERS_TOKEN=)' "$unit"; then
		fail "$name: the token must come from /etc/tigers/token.env, never the unit"
	fi
	sed "s#^ExecStart=/usr/local/bin/#ExecStart=$scratch/bin/#" "$unit" >"$scratch/$name"
done
[[ ${#units[@]} -ge 2 ]] || fail "expected the coordinator and worker units, found: ${units[*]}"

cd "$scratch"
output=$(systemd-analyze verify "${units[@]}" 2>&1) || fail "systemd-analyze verify failed:
$output"
[[ -z $output ]] || fail "systemd-analyze verify printed warnings:
$output"
echo "systemd-analyze verify: ${units[*]}: no warnings"

for name in "${units[@]}"; do
	if ! output=$(systemd-analyze security --offline=yes --threshold=20 --no-pager "./$name" 2>&1); then
		echo "$output" | grep '✗' >&2 || true
		fail "$name: $(echo "$output" | tail -n 1)"
	fi
	echo "systemd-analyze security: $(echo "$output" | tail -n 1 | sed 's/^→ //')"
done
