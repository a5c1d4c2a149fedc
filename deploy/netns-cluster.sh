#!/usr/bin/env bash
# A three-host cluster on this one machine, in network namespaces: the coordinator on one
# "host", a worker on each of two others, each with its own address, joined by a bridge.
#
#   hub     (br0 10.99.0.254: the operator's seat, where `coordinator status` runs)
#    |-- coord  eth0 10.99.0.1    coordinator --listen 10.99.0.1:$PORT, with a token
#    |-- w1     eth0 10.99.0.11   worker "w1"
#    `-- w2     eth0 10.99.0.12   worker "w2"
#
# It checks that both workers' samples arrive (over their own addresses), cuts w1's link for a
# while (w1 keeps playing into its spool, w2 goes on) and restores it, kills the coordinator
# with SIGKILL and restarts it on the same run directory (the run resumes and both workers
# reconnect by themselves), then stops everything and checks every batch is in the ledger
# exactly once. The addresses exist only inside the namespaces it creates; nothing leaves them.
#
# Needs root and iproute2 (installed with apt if missing). Exits non-zero on any failure and
# always removes its namespaces and stops the processes it started (on success, failure or
# Ctrl-C). Settings, from the environment:
#   COORDINATOR_BIN, WORKER_BIN  the binaries [target/debug/coordinator, target/debug/worker]
#                                (build them: cargo build -p tigers-coordinator -p tigers-worker)
#   PORT                         the coordinator's port inside its namespace [50061]
#   CUT_SECONDS                  how long w1's link stays down [8]
#   KEEP_WORKDIR=1               keep the run directory, state and logs (printed at the end)
#   TABLEBASE                    a solved tablebase file (`tui tablebase build`): the coordinator
#                                loads it and names it in assignments, and each worker must fetch
#                                it over its own link, check it and play with it (adjudicated
#                                self-play); without it, the cluster runs without a table
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
COORDINATOR_BIN=${COORDINATOR_BIN:-$repo/target/debug/coordinator}
WORKER_BIN=${WORKER_BIN:-$repo/target/debug/worker}
PORT=${PORT:-50061}
CUT_SECONDS=${CUT_SECONDS:-8}
KEEP_WORKDIR=${KEEP_WORKDIR:-0}
TABLEBASE=${TABLEBASE:-}

# A fast, tiny run like coordinator/tests/it/cluster.rs's (depth-1 games, batches of two
# games, gates of one or two pairs), but with candidates far apart: each sample is trained on
# once, in steps of 256, and a candidate comes every 2000 steps, i.e. every 512,000 samples (about
# 20 s on two busy cores). The coordinator refuses samples more than 5 generations older than
# its net, and a cut-off worker cannot hear of new nets: with cluster.rs's candidate every 40
# steps, generations here came every few seconds and the batches w1 spooled while cut off were
# stale (and refused) by the time its link came back.
TRAINING_ARGS=(--depth 1 --games-per-batch 2 --batch-size 256 --window 20000 --max-uses 1
	--steps-per-candidate 2000 --gate-max-pairs 2 --gate-min-pairs 1 --timed-ms 10 --timed-pairs 1)
if [[ -n $TABLEBASE ]]; then
	[[ -s $TABLEBASE ]] || fail "TABLEBASE=$TABLEBASE is not a file"
	TABLEBASE_ARGS=(--tablebase "$TABLEBASE" --tablebase-use adjudicate)
else
	TABLEBASE_ARGS=(--no-tablebase)
fi

log() { printf '[netns-cluster %(%H:%M:%S)T] %s\n' -1 "$*"; }
fail() {
	printf '[netns-cluster] FAILED: %s\n' "$*" >&2
	exit 1
}

[[ $(id -u) -eq 0 ]] || fail "needs root (network namespaces)"
if ! command -v ip >/dev/null; then
	log "installing iproute2"
	apt-get install -y -qq iproute2 >/dev/null || { apt-get update -qq && apt-get install -y -qq iproute2 >/dev/null; }
fi
command -v python3 >/dev/null || fail "needs python3 (to read the status JSON and the ledger)"
for bin in "$COORDINATOR_BIN" "$WORKER_BIN"; do
	[[ -x $bin ]] || fail "$bin is not an executable; build it: cargo build -p tigers-coordinator -p tigers-worker (or set COORDINATOR_BIN/WORKER_BIN)"
done

# Namespaces are named tsn-<this script's pid>-<host>, so runs never collide and leftovers of a
# run that was killed outright (no trap) can be recognised and removed by the next one.
prefix=tsn-$$
ns_hub=$prefix-hub
ns_coord=$prefix-coord
ns_w1=$prefix-w1
ns_w2=$prefix-w2
coord_ip=10.99.0.1
hub_ip=10.99.0.254
url=http://$coord_ip:$PORT

work=$(mktemp -d "${TMPDIR:-/tmp}/tigers-netns-$$.XXXXXX")
run_dir=$work/run
coord_pid=""
w1_pid=""
w2_pid=""
status=1

# Stops a process this script started: SIGTERM, then SIGKILL after a grace period.
stop_pid() {
	local pid=$1 grace=${2:-10}
	[[ -n $pid ]] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < grace * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# Deletes namespace $1 after killing, by pid, whatever still runs inside it.
delete_ns() {
	local ns=$1 pid
	[[ -e /run/netns/$ns ]] || return 0
	for pid in $(ip netns pids "$ns" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	ip netns delete "$ns" 2>/dev/null || true
}

cleanup() {
	local code=$?
	trap - EXIT
	trap "" INT TERM
	set +e
	stop_pid "$w1_pid" 2
	stop_pid "$w2_pid" 2
	stop_pid "$coord_pid" 2
	# Deleting a namespace destroys its interfaces: the veth pairs and the bridge go with them.
	for ns in "$ns_w1" "$ns_w2" "$ns_coord" "$ns_hub"; do
		delete_ns "$ns"
	done
	if [[ $status -ne 0 || $code -ne 0 ]]; then
		for f in "$work"/*.log; do
			[[ -f $f ]] || continue
			echo "---- last lines of $(basename "$f")" >&2
			tail -n 15 "$f" >&2
		done
	fi
	if [[ $KEEP_WORKDIR == 1 ]]; then
		touch "$work/KEPT"
		echo "[netns-cluster] kept $work" >&2
	else
		rm -rf "$work"
	fi
	[[ $code -ne 0 ]] && exit "$code"
	exit "$status"
}
trap cleanup EXIT
trap 'echo "[netns-cluster] interrupted" >&2; exit 130' INT
trap 'echo "[netns-cluster] terminated" >&2; exit 143' TERM

# Leftovers of earlier runs that died without their trap (their script's pid is gone): their
# namespaces, the processes in them, and their scratch directories (unless KEEP_WORKDIR kept them).
for ns in $(ip netns list | awk '{print $1}' | grep -E '^tsn-[0-9]+-(hub|coord|w1|w2)$' || true); do
	owner=${ns#tsn-}
	owner=${owner%%-*}
	if ! kill -0 "$owner" 2>/dev/null; then
		log "removing $ns, left over by an earlier run"
		delete_ns "$ns"
	fi
done
for dir in "${TMPDIR:-/tmp}"/tigers-netns-*.*; do
	[[ -d $dir && ! -e $dir/KEPT ]] || continue
	owner=${dir##*/tigers-netns-}
	owner=${owner%%.*}
	if [[ $owner =~ ^[0-9]+$ ]] && ! kill -0 "$owner" 2>/dev/null; then
		rm -rf "$dir"
	fi
done

# ---- the network -------------------------------------------------------------------------
log "creating namespaces $prefix-{hub,coord,w1,w2}"
for ns in "$ns_hub" "$ns_coord" "$ns_w1" "$ns_w2"; do
	ip netns add "$ns"
	ip -n "$ns" link set lo up
done
ip -n "$ns_hub" link add br0 type bridge
ip -n "$ns_hub" addr add "$hub_ip/24" dev br0
ip -n "$ns_hub" link set br0 up
# host <ns> <hub-side interface> <address>: a veth from the hub's bridge to eth0 in <ns>.
host() {
	local ns=$1 port=$2 address=$3
	ip -n "$ns_hub" link add "$port" type veth peer name eth0 netns "$ns"
	ip -n "$ns_hub" link set "$port" master br0 up
	ip -n "$ns" addr add "$address/24" dev eth0
	ip -n "$ns" link set eth0 up
}
host "$ns_coord" coord "$coord_ip"
host "$ns_w1" w1 10.99.0.11
host "$ns_w2" w2 10.99.0.12

# ---- the processes -----------------------------------------------------------------------
TIGERS_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
export TIGERS_TOKEN RUST_LOG=${RUST_LOG:-info}

start_coordinator() {
	ip netns exec "$ns_coord" "$COORDINATOR_BIN" --listen "$coord_ip:$PORT" --run-dir "$run_dir" \
		--headless --log-json "${TRAINING_ARGS[@]}" "${TABLEBASE_ARGS[@]}" >>"$work/coordinator.log" 2>&1 &
	coord_pid=$!
}
start_worker() {
	local ns=$1 name=$2
	local table=(--no-tablebase)
	[[ -n $TABLEBASE ]] && table=(--tablebase "$work/$name-cache/movement-phase.tb")
	ip netns exec "$ns" "$WORKER_BIN" --connect "$url" --threads 1 --name "$name" \
		--state-dir "$work/$name" "${table[@]}" --log-json >>"$work/$name.log" 2>&1 &
}

# status <file>: the run's status as JSON in <file>, asked from the hub (the operator's seat)
# over the bridge. The JSON lists every gate of the run, so it grows: it goes through files.
status() {
	timeout 15 ip netns exec "$ns_hub" "$COORDINATOR_BIN" status --connect "$url" \
		>"$1.tmp" 2>>"$work/status.log" && [[ -s $1.tmp ]] && mv "$1.tmp" "$1"
}

# check <file> <condition>, field <file> <expression>: a Python expression over the status in
# <file> (s), the worker ids (w1, w2) and the helpers below; check succeeds if it is true, field
# prints it.
cat >"$work/status.py" <<'PY'
import json, sys
mode, path, w1, w2, expression = sys.argv[1:]
s = json.load(open(path))
def worker(s, i):  # that worker's entry, {} if absent
    return next((w for w in s["workers"] if w["id"] == i), {})
def samples(s, i):  # that worker's acknowledged samples
    return s["samples_by_worker"].get(i, 0)
def brief(s):  # the status without its ever longer list of gates
    return json.dumps({**s, "gates": f"{len(s['gates'])} gates"})
value = eval(expression)
if mode == "check":
    sys.exit(0 if value else 1)
print(value)
PY
check() { python3 "$work/status.py" check "$1" "${w1_id:-}" "${w2_id:-}" "$2"; }
field() { python3 "$work/status.py" field "$1" "${w1_id:-}" "${w2_id:-}" "$2"; }
brief() {
	if [[ -s $1 ]]; then field "$1" 'brief(s)'; else echo none; fi
}

# wait_for <what> <seconds> <condition>: polls the status until the condition holds; the last
# status is left in $last. Fails early if the coordinator has died.
last=$work/last.json
wait_for() {
	local what=$1 limit=$2 condition=$3 deadline=$((SECONDS + $2))
	rm -f "$last"
	while ((SECONDS < deadline)); do
		kill -0 "$coord_pid" 2>/dev/null || fail "the coordinator died while waiting for $what"
		if status "$last" && check "$last" "$condition"; then
			return 0
		fi
		sleep 1
	done
	fail "timed out after ${limit}s waiting for $what; last status: $(brief "$last")"
}

# no_refusals <file> <when>: fails if the coordinator refused any batch.
no_refusals() {
	check "$1" 's["batches_rejected"] == 0' ||
		fail "$2, the coordinator refused $(field "$1" 's["batches_rejected"]') batches (see the workers' logs)"
}

read_worker_id() {
	local file=$work/$1/worker_id
	for ((i = 0; i < 100; i++)); do
		[[ -s $file ]] && {
			tr -d '\n' <"$file"
			return 0
		}
		sleep 0.1
	done
	fail "worker $1 wrote no worker_id"
}

log "starting the coordinator in $ns_coord on $coord_ip:$PORT"
start_coordinator
start_worker "$ns_w1" w1
w1_pid=$!
start_worker "$ns_w2" w2
w2_pid=$!
w1_id=$(read_worker_id w1)
w2_id=$(read_worker_id w2)
log "workers $w1_id (10.99.0.11) and $w2_id (10.99.0.12)"

# ---- 1. both workers' samples arrive, each from its own address ---------------------------
wait_for "samples from both workers" 180 \
	'worker(s, w1).get("connected") and worker(s, w2).get("connected") and samples(s, w1) > 0 and samples(s, w2) > 0'
peers=$(ip netns exec "$ns_coord" ss -Htn state established "( sport = :$PORT )" | awk '{print $4}')
for address in 10.99.0.11 10.99.0.12; do
	grep -q "^$address:" <<<"$peers" || fail "no connection from $address to the coordinator (peers: $peers)"
done
log "both workers deliver: $(field "$last" 'samples(s, w1)') and $(field "$last" 'samples(s, w2)') samples, connections from 10.99.0.11 and 10.99.0.12"

# ---- 1b. with a tablebase, each worker fetched the coordinator's over its own link ----------
if [[ -n $TABLEBASE ]]; then
	check "$last" 's["tablebase"]["state"] == "ready"' || fail "the coordinator's tablebase is not ready: $(brief "$last")"
	for name in w1 w2; do
		copy=$work/$name-cache/movement-phase.tb
		for ((i = 0; i < 600; i++)); do
			[[ -s $copy ]] && break
			sleep 0.1
		done
		cmp -s "$TABLEBASE" "$copy" || fail "$name has no whole copy of the tablebase at $copy (see $work/$name.log)"
		grep -q '"tablebase fetched"' "$work/$name.log" || fail "$name did not fetch the tablebase from the coordinator"
	done
	log "both workers fetched the tablebase ($(stat -c %s "$TABLEBASE") bytes each) and checked it"
fi

# ---- 2. w1's link goes down for a while, then comes back ----------------------------------
log "cutting w1's link for ${CUT_SECONDS}s"
ip -n "$ns_hub" link set dev w1 down
sleep 2
status "$work/cut.json" || fail "no status during the cut"
w1_during=$(field "$work/cut.json" 'samples(s, w1)')
w2_during=$(field "$work/cut.json" 'samples(s, w2)')
sleep "$((CUT_SECONDS > 2 ? CUT_SECONDS - 2 : 1))"
status "$work/cut.json" || fail "no status during the cut"
[[ $(field "$work/cut.json" 'samples(s, w1)') == "$w1_during" ]] || fail "w1's samples arrived through a cut link"
check "$work/cut.json" "samples(s, w2) > $w2_during" || fail "w2 stopped delivering while only w1 was cut off"
ip -n "$ns_hub" link set dev w1 up
log "w1's link is back; w1 had $w1_during samples acknowledged"
kill -0 "$w1_pid" 2>/dev/null || fail "w1 died while cut off"
wait_for "w1's samples after the cut" 180 "worker(s, w1).get('connected') and samples(s, w1) > $w1_during"
no_refusals "$last" "after w1's link came back"
log "w1 delivers again: $(field "$last" 'samples(s, w1)') samples"

# ---- 3. the coordinator is killed mid-run and restarted on the same run directory -----------
# First let it train and gate a candidate, so there is a checkpoint to resume from.
wait_for "a candidate's gate" 300 'len(s["gates"]) >= 2 and s["training_steps"] >= 2000'
before=$work/before.json
cp "$last" "$before"
log "killing the coordinator (SIGKILL) at generation $(field "$before" 's["generation"]'), $(field "$before" 's["samples_total"]') samples, $(field "$before" 's["training_steps"]') steps"
kill -KILL "$coord_pid"
wait "$coord_pid" 2>/dev/null || true
coord_pid=""
sleep 3
for pid in "$w1_pid" "$w2_pid"; do
	kill -0 "$pid" 2>/dev/null || fail "a worker died with the coordinator"
done
log "restarting the coordinator on $run_dir"
start_coordinator
wait_for "the restarted coordinator" 120 'True'
resumed=$work/resumed.json
cp "$last" "$resumed"
check "$resumed" "s['samples_total'] >= $(field "$before" 's["samples_total"]')" ||
	fail "samples were lost: before the kill $(brief "$before"), after the restart $(brief "$resumed")"
check "$resumed" "s['generation'] >= $(field "$before" 's["generation"]') and s['training_steps'] > 0 and len(s['gates']) >= $(field "$before" 'len(s["gates"])')" ||
	fail "the run did not resume: before the kill $(brief "$before"), after the restart $(brief "$resumed")"
log "resumed at generation $(field "$resumed" 's["generation"]') with $(field "$resumed" 's["samples_total"]') samples and $(field "$resumed" 's["training_steps"]') steps"
wait_for "both workers back" 180 \
	"worker(s, w1).get('connected') and worker(s, w2).get('connected') and s['samples_total'] > $(field "$resumed" 's["samples_total"]')"
log "both workers reconnected; $(field "$last" 's["samples_total"]') samples"

# ---- 4. stop, and check every batch arrived exactly once ----------------------------------
log "stopping the workers (SIGTERM)"
for pid in "$w1_pid" "$w2_pid"; do
	kill -TERM "$pid"
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && fail "worker $pid did not stop within 30s of SIGTERM"
	wait "$pid" || fail "worker $pid exited with status $?"
done
w1_pid=""
w2_pid=""
final=$work/final.json
status "$final" || fail "no final status"
no_refusals "$final" "at the end"
total=$(field "$final" 's["samples_total"]')
log "stopping the coordinator (SIGTERM)"
kill -TERM "$coord_pid"
for ((i = 0; i < 600; i++)); do
	kill -0 "$coord_pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$coord_pid" 2>/dev/null && fail "the coordinator did not stop within 60s of SIGTERM"
wait "$coord_pid" || fail "the coordinator exited with status $?"
coord_pid=""

python3 - "$run_dir/ledger.sqlite" "$total" "$work" w1 "$w1_id" w2 "$w2_id" <<'EOF' || fail "the ledger does not hold each batch exactly once"
import os, sqlite3, sys

ledger, total, work, *workers = sys.argv[1:]
rows = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True).execute(
    "SELECT worker_id, sequence, sample_count FROM batches ORDER BY worker_id, sequence"
).fetchall()
ok = True
def bad(message):
    global ok
    ok = False
    print("  " + message)
ids = {row[0] for row in rows}
pairs = list(zip(workers[0::2], workers[1::2]))
if ids != {worker_id for _, worker_id in pairs}:
    bad(f"the ledger's workers are {sorted(ids)}, not {[i for _, i in pairs]}")
for name, worker_id in pairs:
    sequences = [r[1] for r in rows if r[0] == worker_id]
    n = len(sequences)
    if sequences != list(range(1, n + 1)):
        bad(f"{name}'s sequences have gaps or repeats: {sequences}")
    spool = os.path.join(work, name, "spool")
    pending = sorted(f for f in os.listdir(spool) if f.endswith(".batch"))
    if pending:
        bad(f"{name} still holds unacknowledged batches: {pending}")
    with open(os.path.join(spool, "next_sequence")) as f:
        next_sequence = int(f.read().strip())
    if next_sequence != n + 1:
        bad(f"{name} made {next_sequence - 1} batches, the ledger has {n}")
    print(f"  {name}: batches 1..{n} in the ledger once each, spool empty, next sequence {next_sequence}")
stored = sum(r[2] for r in rows)
if stored != int(total):
    bad(f"the ledger holds {stored} samples, the status said {total}")
sys.exit(0 if ok else 1)
EOF

status=0
log "PASS: $total samples, every batch exactly once; the cut and the SIGKILL lost nothing"
