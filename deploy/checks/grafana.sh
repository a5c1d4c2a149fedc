#!/usr/bin/env bash
# Checks deploy/grafana/*.json against the programs that serve the metrics:
# - each file is JSON and a Grafana dashboard as Grafana imports it: a title and uid, panels with
#   unique ids, a type and a place on the 24-column grid, every query with an expression and a
#   refId unique in its panel, and every $variable it uses defined;
# - every metric name a query uses (tigers_*, with a histogram's _bucket, _sum and _count) is
#   served: the debug coordinator and worker (COORDINATOR_BIN, WORKER_BIN; default
#   target/debug/*) run a tiny, fast training run on loopback with --metrics-listen, and the two
#   /metrics endpoints are scraped until every name has appeared (some appear only after a gate,
#   a measurement at equal time or the first samples leaving the replay window), or it fails
#   after TIMEOUT seconds (120) naming the ones that never did.
# With TABLEBASE (a solved file, as .ci/run has) the gates and the measurement at equal time are
# judged by it (--measure-tablebase judge: with the default, play, the table decides the movement
# phase, nothing is left to judge there and the timed exact accuracy is never served) and the
# exact-accuracy metrics appear; without one, names with exact_accuracy are only looked for in the
# source.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
COORDINATOR_BIN=${COORDINATOR_BIN:-$repo/target/debug/coordinator}
WORKER_BIN=${WORKER_BIN:-$repo/target/debug/worker}
TABLEBASE=${TABLEBASE:-}
TIMEOUT=${TIMEOUT:-120}
fail() {
	echo "grafana check FAILED: $*" >&2
	exit 1
}
for bin in "$COORDINATOR_BIN" "$WORKER_BIN"; do
	[[ -x $bin ]] || fail "$bin is missing: cargo build -p tigers-coordinator -p tigers-worker"
done
dashboards=("$repo"/deploy/grafana/*.json)
[[ -e ${dashboards[0]} ]] || fail "no dashboard in deploy/grafana"

scratch=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$scratch"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
grpc=$(free_port)
coordinator_metrics=$(free_port)
worker_metrics=$(free_port)
if [[ -n $TABLEBASE ]]; then
	[[ -s $TABLEBASE ]] || fail "TABLEBASE=$TABLEBASE is not a file"
	# The gate judges exact accuracy with it; self-play does not use it, so the worker does not
	# fetch it.
	table=(--tablebase "$TABLEBASE" --tablebase-use none --measure-tablebase judge)
else
	table=(--no-tablebase)
fi
# Depth-1 games, a small window that samples soon leave, a candidate every 50 steps with gates
# of one or two pairs, a measurement at equal time of one pair at 1 ms a move, and a decision on
# the self-play depth every second: every metric within seconds.
"$COORDINATOR_BIN" --listen "127.0.0.1:$grpc" --run-dir "$scratch/run" --headless \
	--metrics-listen "127.0.0.1:$coordinator_metrics" "${table[@]}" \
	--depth 1 --self-play-depth-max 2 --self-play-depth-seconds 1 --games-per-batch 2 \
	--batch-size 64 --window 512 --max-uses 2 --steps-per-candidate 50 \
	--gate-min-pairs 1 --gate-max-pairs 2 --timed-pairs 1 --timed-ms 1 \
	>"$scratch/coordinator.log" 2>&1 &
pids+=($!)
"$WORKER_BIN" --connect "http://127.0.0.1:$grpc" --threads 1 --state-dir "$scratch/worker" \
	--no-tablebase --metrics-listen "127.0.0.1:$worker_metrics" \
	>"$scratch/worker.log" 2>&1 &
pids+=($!)

python3 - "$repo" "$TIMEOUT" "${TABLEBASE:+table}" \
	"http://127.0.0.1:$coordinator_metrics/metrics" "http://127.0.0.1:$worker_metrics/metrics" \
	"${dashboards[@]}" <<'PY' || {
import json, os, re, sys, time, urllib.request

repo, timeout, with_table, urls, files = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "table", sys.argv[4:6], sys.argv[6:]
METRIC = re.compile(r"\b(tigers_[a-z0-9_]+)\b")
VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
BUILTIN = {"__interval", "__rate_interval", "__range", "__name", "__all", "__dashboard", "__from", "__to", "__timeFilter"}

def base(name):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name

def check_dashboard(path):
    """The names of the metrics its queries use; raises on a structural fault."""
    dash = json.load(open(path))
    where = os.path.relpath(path, repo)
    for key in ("title", "uid", "panels", "schemaVersion"):
        assert key in dash, f"{where}: no {key}"
    defined = {v["name"] for v in dash.get("templating", {}).get("list", [])}
    ids, names = set(), set()
    panels = [p for top in dash["panels"] for p in [top] + top.get("panels", [])]
    assert panels, f"{where}: no panels"
    for panel in panels:
        label = f"{where}: panel {panel.get('id')} {panel.get('title')!r}"
        assert isinstance(panel.get("id"), int) and panel["id"] not in ids, f"{label}: id missing or repeated"
        ids.add(panel["id"])
        assert panel.get("type") and panel.get("title"), f"{label}: no type or title"
        grid = panel.get("gridPos", {})
        assert all(isinstance(grid.get(k), int) for k in "xywh"), f"{label}: gridPos {grid}"
        assert grid["x"] >= 0 and grid["w"] > 0 and grid["x"] + grid["w"] <= 24, f"{label}: beyond 24 columns"
        if panel["type"] == "row":
            continue
        targets = panel.get("targets", [])
        assert targets, f"{label}: no query"
        refs = [t.get("refId") for t in targets]
        assert all(refs) and len(set(refs)) == len(refs), f"{label}: refIds {refs}"
        for text in [json.dumps(panel.get("datasource"))] + [t.get("expr", "") for t in targets]:
            for variable in VARIABLE.findall(text):
                assert variable in defined or variable in BUILTIN, f"{label}: ${variable} is not defined"
        for target in targets:
            expr = target.get("expr", "")
            assert expr.strip(), f"{label}: query {target.get('refId')} has no expression"
            assert expr.count("(") == expr.count(")"), f"{label}: unbalanced parentheses in {expr!r}"
            found = METRIC.findall(expr)
            assert found, f"{label}: {expr!r} uses no tigers_ metric"
            names.update(found)
    return names

def served(url):
    try:
        text = urllib.request.urlopen(url, timeout=5).read().decode()
    except OSError:
        return set()
    return {base(line.split("{")[0].split(" ")[0]) for line in text.splitlines() if line and not line.startswith("#")}

def in_source():
    names = set()
    for folder in ("coordinator/src", "worker/src"):
        for root, _, files in os.walk(os.path.join(repo, folder)):
            for f in files:
                if f.endswith(".rs"):
                    names.update(re.findall(r'"(tigers_[a-z0-9_]+)"', open(os.path.join(root, f)).read()))
    return names

used = {}
for path in files:
    for name in check_dashboard(path):
        used.setdefault(base(name), set()).add(os.path.relpath(path, repo))
print(f"grafana: {', '.join(os.path.relpath(f, repo) for f in files)}: valid dashboards using {len(used)} metrics")
source = in_source()
if not with_table:
    table_only = {n for n in used if "exact_accuracy" in n}
    missing = sorted(table_only - source)
    assert not missing, f"not in the source: {missing}"
    print(f"grafana: without TABLEBASE, {len(table_only)} exact-accuracy metrics found in the source only")
    wanted = set(used) - table_only
else:
    wanted = set(used)
deadline = time.monotonic() + timeout
seen = set()
while True:
    for url in urls:
        seen |= served(url)
    missing = sorted(wanted - seen)
    if not missing:
        break
    if time.monotonic() > deadline:
        hint = [f"{m} (used by {', '.join(sorted(used[m]))}; {'in the source' if m in source else 'not in the source'})" for m in missing]
        sys.exit("never served within %.0f s: %s" % (timeout, "; ".join(hint)))
    time.sleep(1)
unused = sorted(n for n in seen if n.startswith("tigers_") and n not in used)
print(f"grafana: all {len(wanted)} metrics the dashboards use were served by the coordinator and the worker")
if unused:
    print(f"grafana: served but on no panel: {', '.join(unused)}")
PY
	echo "--- coordinator log (last lines)" >&2
	tail -n 20 "$scratch/coordinator.log" >&2 || true
	echo "--- worker log (last lines)" >&2
	tail -n 20 "$scratch/worker.log" >&2 || true
	fail "see above"
}
