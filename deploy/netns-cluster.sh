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
# With --soak MINUTES it runs a third worker (w3, 10.99.0.13) and, instead of the one cut and
# the one kill, keeps the cluster running for that long through a worker killed with SIGKILL
# and restarted every SOAK_KILL_WORKER_EVERY seconds (each in turn), the coordinator killed
# with SIGKILL and restarted every SOAK_KILL_COORDINATOR_EVERY seconds, and one link cut a
# third of the way in, sampling every process's resident memory (and the ledger's size) every
# SOAK_SAMPLE_EVERY seconds; at the end the same exactly-once check, every process's peak
# memory within its bound, and the curve printed (and kept in rss.csv with KEEP_WORKDIR=1).
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
#   SOAK_KILL_WORKER_EVERY       with --soak: seconds between worker kills [180]
#   SOAK_KILL_COORDINATOR_EVERY  with --soak: seconds between coordinator kills [900]
#   SOAK_SAMPLE_EVERY            with --soak: seconds between memory samples [15]
#   SOAK_MAX_COORDINATOR_MIB     with --soak: the coordinator's resident memory bound [1024]
#   SOAK_MAX_WORKER_MIB          with --soak: each worker's resident memory bound [512]
set -euo pipefail

SOAK_MINUTES=0
while (($#)); do
	case $1 in
	--soak)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "--soak takes a whole number of minutes, not '${2:-}'" >&2; exit 2; }
		SOAK_MINUTES=$2
		shift 2
		;;
	*)
		echo "unknown argument '$1' (usage: netns-cluster.sh [--soak MINUTES])" >&2
		exit 2
		;;
	esac
done
SOAK_KILL_WORKER_EVERY=${SOAK_KILL_WORKER_EVERY:-180}
SOAK_KILL_COORDINATOR_EVERY=${SOAK_KILL_COORDINATOR_EVERY:-900}
SOAK_SAMPLE_EVERY=${SOAK_SAMPLE_EVERY:-15}
SOAK_MAX_COORDINATOR_MIB=${SOAK_MAX_COORDINATOR_MIB:-1024}
SOAK_MAX_WORKER_MIB=${SOAK_MAX_WORKER_MIB:-512}

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
ns_w3=$prefix-w3
coord_ip=10.99.0.1
hub_ip=10.99.0.254
url=http://$coord_ip:$PORT

work=$(mktemp -d "${TMPDIR:-/tmp}/tigers-netns-$$.XXXXXX")
run_dir=$work/run
coord_pid=""
w1_pid=""
w2_pid=""
w3_pid=""
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
	stop_pid "$w3_pid" 2
	stop_pid "$coord_pid" 2
	# Deleting a namespace destroys its interfaces: the veth pairs and the bridge go with them.
	for ns in "$ns_w1" "$ns_w2" "$ns_w3" "$ns_coord" "$ns_hub"; do
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
for ns in $(ip netns list | awk '{print $1}' | grep -E '^tsn-[0-9]+-(hub|coord|w1|w2|w3)$' || true); do
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
workers=(w1 w2)
((SOAK_MINUTES > 0)) && workers+=(w3)
log "creating namespaces $prefix-{hub,coord,$(IFS=,; echo "${workers[*]}")}"
namespaces=("$ns_hub" "$ns_coord" "$ns_w1" "$ns_w2")
((SOAK_MINUTES > 0)) && namespaces+=("$ns_w3")
for ns in "${namespaces[@]}"; do
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
((SOAK_MINUTES > 0)) && host "$ns_w3" w3 10.99.0.13

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
# <file> (s), the worker ids (w1, w2, w3) and the helpers below; check succeeds if it is true,
# field prints it.
cat >"$work/status.py" <<'PY'
import json, sys
mode, path, w1, w2, w3, expression = sys.argv[1:]
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
check() { python3 "$work/status.py" check "$1" "${w1_id:-}" "${w2_id:-}" "${w3_id:-}" "$2"; }
field() { python3 "$work/status.py" field "$1" "${w1_id:-}" "${w2_id:-}" "${w3_id:-}" "$2"; }
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
if ((SOAK_MINUTES > 0)); then
	start_worker "$ns_w3" w3
	w3_pid=$!
	w3_id=$(read_worker_id w3)
	log "and $w3_id (10.99.0.13), for a soak of $SOAK_MINUTES minutes"
fi

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

if ((SOAK_MINUTES == 0)); then
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

fi

# ---- 2-3 as a soak: kills, restarts and a cut for --soak MINUTES --------------------------
if ((SOAK_MINUTES > 0)); then
	rss=$work/rss.csv
	echo "seconds,process,rss_mib" >"$rss"
	# sample_memory: every process's resident memory, and the ledger's size on disk, now.
	sample_memory() {
		local name pid_var pid kib at=$((SECONDS - soak_start))
		for name in coordinator "${workers[@]}"; do
			if [[ $name == coordinator ]]; then pid=$coord_pid; else
				pid_var=${name}_pid
				pid=${!pid_var}
			fi
			kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || continue
			[[ -n $kib ]] && echo "$at,$name,$((kib / 1024))" >>"$rss"
		done
		local ledger_bytes
		ledger_bytes=$(du -cb "$run_dir"/ledger.sqlite* 2>/dev/null | tail -1 | cut -f1) || ledger_bytes=0
		echo "$at,ledger,$((ledger_bytes / 1048576))" >>"$rss"
	}
	# restart_worker <name>: SIGKILL, then the same binary on the same state directory.
	restart_worker() {
		local name=$1 pid_var=${1}_pid ns_var=ns_${1}
		kill -KILL "${!pid_var}" 2>/dev/null || true
		wait "${!pid_var}" 2>/dev/null || true
		start_worker "${!ns_var}" "$name"
		printf -v "$pid_var" '%s' "$!"
	}
	soak_start=$SECONDS
	soak_end=$((SECONDS + SOAK_MINUTES * 60))
	next_worker_kill=$((SECONDS + SOAK_KILL_WORKER_EVERY))
	next_coordinator_kill=$((SECONDS + SOAK_KILL_COORDINATOR_EVERY))
	cut_at=$((SECONDS + SOAK_MINUTES * 20))
	victim=0
	worker_kills=0
	coordinator_kills=0
	log "soaking for $SOAK_MINUTES minutes: a worker killed every ${SOAK_KILL_WORKER_EVERY}s, the coordinator every ${SOAK_KILL_COORDINATOR_EVERY}s, one cut at minute $((SOAK_MINUTES / 3))"
	while ((SECONDS < soak_end)); do
		sample_memory
		kill -0 "$coord_pid" 2>/dev/null || fail "the coordinator died during the soak"
		for name in "${workers[@]}"; do
			pid_var=${name}_pid
			kill -0 "${!pid_var}" 2>/dev/null || fail "$name died during the soak (see $name.log)"
		done
		if ((cut_at > 0 && SECONDS >= cut_at)); then
			cut=${workers[$((${#workers[@]} - 1))]}
			log "cutting $cut's link for ${CUT_SECONDS}s"
			ip -n "$ns_hub" link set dev "$cut" down
			sleep "$CUT_SECONDS"
			ip -n "$ns_hub" link set dev "$cut" up
			cut_at=0
		fi
		if ((SECONDS >= next_worker_kill)); then
			name=${workers[$((victim % ${#workers[@]}))]}
			log "killing $name (SIGKILL) and starting it again on its state directory"
			restart_worker "$name"
			victim=$((victim + 1))
			worker_kills=$((worker_kills + 1))
			next_worker_kill=$((SECONDS + SOAK_KILL_WORKER_EVERY))
		fi
		if ((SECONDS >= next_coordinator_kill)); then
			status "$work/before-kill.json" || fail "no status before killing the coordinator"
			log "killing the coordinator (SIGKILL) at $(field "$work/before-kill.json" 's["samples_total"]') samples, and starting it again"
			kill -KILL "$coord_pid"
			wait "$coord_pid" 2>/dev/null || true
			start_coordinator
			wait_for "the restarted coordinator" 120 \
				"s['samples_total'] >= $(field "$work/before-kill.json" 's["samples_total"]')"
			coordinator_kills=$((coordinator_kills + 1))
			next_coordinator_kill=$((SECONDS + SOAK_KILL_COORDINATOR_EVERY))
		fi
		sleep "$SOAK_SAMPLE_EVERY"
	done
	status "$work/soaked.json" || fail "no status at the end of the soak"
	wait_for "every worker delivering after the soak" 180 \
		"all(worker(s, i).get('connected') for i in (w1, w2, w3)) and s['samples_total'] > $(field "$work/soaked.json" 's["samples_total"]')"
	sample_memory
	log "soaked: $worker_kills worker kills, $coordinator_kills coordinator kills, one cut; $(field "$last" 's["samples_total"]') samples"
	python3 - "$rss" "$SOAK_MAX_COORDINATOR_MIB" "$SOAK_MAX_WORKER_MIB" <<'PY' || fail "a process outgrew its memory bound"
import csv, sys
path, coordinator_bound, worker_bound = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = list(csv.DictReader(open(path)))
names = sorted({r["process"] for r in rows}, key=lambda n: (n != "coordinator", n == "ledger", n))
end = max(int(r["seconds"]) for r in rows)
tenths = [end * k // 10 for k in range(11)]
print("  resident memory in MiB (the ledger: its files' size), the most in each tenth of the soak,")
print("  by its end (minutes:seconds):")
print("  " + "process".ljust(12) + " ".join(f"{t // 60:>2}:{t % 60:02}" for t in tenths[1:]) + "   peak")
ok = True
for name in names:
    mine = [(int(r["seconds"]), int(r["rss_mib"])) for r in rows if r["process"] == name]
    curve = []
    for low, high in zip(tenths, tenths[1:]):
        inside = [m for s, m in mine if low <= s <= high]
        curve.append(f"{max(inside):>5}" if inside else "    -")
    peak = max(m for _, m in mine)
    print("  " + name.ljust(12) + " ".join(curve) + f"  {peak:>5}")
    bound = {"coordinator": coordinator_bound, "ledger": None}.get(name, worker_bound)
    if bound is not None and peak > bound:
        ok = False
        print(f"  {name} peaked at {peak} MiB, above its bound of {bound} MiB")
sys.exit(0 if ok else 1)
PY
fi

# ---- 4. stop, and check every batch arrived exactly once ----------------------------------
log "stopping the workers (SIGTERM)"
for pid in "$w1_pid" "$w2_pid" $w3_pid; do
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
w3_pid=""
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

pairs=(w1 "$w1_id" w2 "$w2_id")
((SOAK_MINUTES > 0)) && pairs+=(w3 "$w3_id")
python3 - "$run_dir/ledger.sqlite" "$total" "$work" "${pairs[@]}" <<'EOF' || fail "the ledger does not hold each batch exactly once"
import os, sqlite3, sys

# Rows older than ten minutes are compacted (their counts folded into their worker's row, up to
# `compacted_through`): each worker's batches are then those counted there and the rows after.
ledger, total, work, *workers = sys.argv[1:]
db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
rows = db.execute(
    "SELECT worker_id, sequence, sample_count FROM batches ORDER BY worker_id, sequence"
).fetchall()
compacted = {
    worker_id: (through, batches, samples)
    for worker_id, through, batches, samples in db.execute(
        "SELECT worker_id, compacted_through, compacted_batches, compacted_samples FROM workers"
    )
}
refused = db.execute("SELECT count(*) FROM refused").fetchone()[0]
ok = True
def bad(message):
    global ok
    ok = False
    print("  " + message)
if refused:
    bad(f"the ledger lists {refused} ranges of refused batch numbers")
ids = {row[0] for row in rows} | {i for i, c in compacted.items() if c[1] > 0}
pairs = list(zip(workers[0::2], workers[1::2]))
if ids != {worker_id for _, worker_id in pairs}:
    bad(f"the ledger's workers are {sorted(ids)}, not {[i for _, i in pairs]}")
stored = 0
for name, worker_id in pairs:
    through, folded, folded_samples = compacted.get(worker_id, (0, 0, 0))
    if folded != through:
        bad(f"{name}: {folded} batches compacted through sequence {through}")
    sequences = [r[1] for r in rows if r[0] == worker_id]
    n = through + len(sequences)
    if sequences != list(range(through + 1, n + 1)):
        bad(f"{name}'s sequences after {through} have gaps or repeats: {sequences}")
    stored += folded_samples + sum(r[2] for r in rows if r[0] == worker_id)
    spool = os.path.join(work, name, "spool")
    pending = sorted(f for f in os.listdir(spool) if f.endswith(".batch"))
    if pending:
        bad(f"{name} still holds unacknowledged batches: {pending}")
    with open(os.path.join(spool, "next_sequence")) as f:
        next_sequence = int(f.read().strip())
    if next_sequence != n + 1:
        bad(f"{name} made {next_sequence - 1} batches, the ledger has {n}")
    print(f"  {name}: batches 1..{n} in the ledger once each ({through} compacted), spool empty, next sequence {next_sequence}")
if stored != int(total):
    bad(f"the ledger holds {stored} samples, the status said {total}")
sys.exit(0 if ok else 1)
EOF

status=0
if ((SOAK_MINUTES > 0)); then
	log "PASS: $total samples over a $SOAK_MINUTES-minute soak, every batch exactly once; $worker_kills worker kills, $coordinator_kills coordinator kills and a cut lost nothing"
else
	log "PASS: $total samples, every batch exactly once; the cut and the SIGKILL lost nothing"
fi
