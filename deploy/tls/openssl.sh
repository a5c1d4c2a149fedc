#!/usr/bin/env bash
# A CA and a coordinator certificate it signs, made with openssl: the recipe of docs/deploy.md
# ("TLS certificates") for those who keep their own CA, run by CI as written there.
#
#   deploy/tls/openssl.sh OUT HOST...
#
# Each HOST is a DNS name or an IPv4 address workers will write in --connect. Writes
# OUT/ca.pem, OUT/ca.key, OUT/coordinator.pem and OUT/coordinator.key.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 OUT HOST..." >&2
	exit 2
fi
out=$1
shift
names=()
for host in "$@"; do
	if [[ $host =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		names+=("IP:$host")
	else
		names+=("DNS:$host")
	fi
done
san=$(IFS=,; echo "${names[*]}")
mkdir -p "$out"
cd "$out"
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
	-subj "/CN=tigers CA" -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
	-keyout coordinator.key -out coordinator.csr 2>/dev/null
openssl x509 -req -in coordinator.csr -CA ca.pem -CAkey ca.key -days 730 -out coordinator.pem \
	-extfile <(printf 'basicConstraints=critical,CA:FALSE\nsubjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san") \
	2>/dev/null
rm coordinator.csr
chmod 644 ca.pem coordinator.pem
echo "wrote $out/ca.pem, ca.key, coordinator.pem and coordinator.key for $*"
