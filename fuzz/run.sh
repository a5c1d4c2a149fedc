#!/usr/bin/env bash
# Runs the fuzz targets (all, or those named) for SECONDS each, one after another, starting
# from their committed corpora (corpus/TARGET) and adding what they find there. An input that
# crashes, leaks, runs out of memory or takes over 10 s stops the run with the target's name;
# it is in artifacts/TARGET/ (docs/fuzzing.md).
#
#   fuzz/run.sh SECONDS [TARGET...]
set -euo pipefail
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
cd "$(dirname "$0")"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(position moves record games net_file tablebase_file placement_layer wire)
fi
# cargo fuzz asks for nightly flags (the sanitizer, coverage passes); a stable toolchain takes
# them under RUSTC_BOOTSTRAP=1.
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
	echo "== fuzzing $target for $seconds s"
	mkdir -p "corpus/$target"
	# A layer's decoding starts threads, whose teardown LeakSanitizer can catch mid-way (a
	# report that did not reproduce; docs/fuzzing.md): that target runs without it.
	leaks=1
	[ "$target" = placement_layer ] && leaks=0
	status=0
	cargo fuzz run -O "$target" "corpus/$target" -- -max_total_time="$seconds" \
		-rss_limit_mb=2048 -timeout=10 -detect_leaks="$leaks" -print_final_stats=1 \
		>"$log" 2>&1 || status=$?
	grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$log" || true
	if [ "$status" -ne 0 ]; then
		tail -40 "$log" >&2
		echo "fuzz target $target failed (exit $status): its input is in fuzz/artifacts/$target/" >&2
		exit 1
	fi
done
