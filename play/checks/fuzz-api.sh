#!/usr/bin/env bash
# Fuzzes the play API of a running `tui serve` against its OpenAPI description with
# schemathesis: no answer may be a 5xx, and every answer's status, content type, headers and
# body must be what the description says. Requests the description allows but the game refuses
# (an impossible position, an illegal move) are 400s the description names, so schemathesis's
# check that schema-valid requests succeed is left out.
#
# Usage: play/checks/fuzz-api.sh TUI_BINARY TABLEBASE NET [EXAMPLES]   (needs schemathesis)
set -euo pipefail
tui=$1
table=$2
net=$3
examples=${4:-100}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$tui" serve --listen "127.0.0.1:$port" --tablebase "$table" --net "$net" --searches 2 --client-lookups 100000 \
	--max-ms 200 --client-ms 60000 >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -f "$log"' EXIT
answers() {
	python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=5)" \
		"http://127.0.0.1:$port/api/v1/server" 2>/dev/null
}
for _ in $(seq 100); do
	if answers; then break; fi
	sleep 0.2
done
answers || { echo "tui serve never answered:"; cat "$log"; exit 1; }
schemathesis run "http://127.0.0.1:$port/api/v1/openapi.json" \
	--checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
	--max-examples "$examples" --seed 49 --no-color
kill -0 "$server" || { echo "tui serve died under the fuzz:"; cat "$log"; exit 1; }
