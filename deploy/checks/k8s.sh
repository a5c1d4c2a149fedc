#!/usr/bin/env bash
# Checks deploy/k8s offline, with no cluster:
# - every manifest with `kubernetes-validate --strict` (the Kubernetes OpenAPI schemas bundled
#   with it; --strict refuses unknown fields), against the newest and the oldest version it
#   bundles;
# - kustomization.yaml, which is kustomize's file and not a Kubernetes kind (kubernetes-validate
#   has no schema for it and would only warn), by checking that it lists exactly the manifests
#   and only names images and Deployments the manifests use; and, where kubectl is installed,
#   by rendering it (`kubectl kustomize`, offline) and validating the result strictly too.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$repo/deploy/k8s
fail() {
	echo "k8s check FAILED: $*" >&2
	exit 1
}

if ! command -v kubernetes-validate >/dev/null; then
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore kubernetes-validate
fi

manifests=()
for file in "$dir"/*.yaml; do
	[[ $(basename "$file") == kustomization.yaml ]] || manifests+=("$file")
done
for version in 1.25.0 ""; do
	kubernetes-validate --strict --quiet ${version:+-k "$version"} "${manifests[@]}" ||
		fail "kubernetes-validate --strict ${version:+-k $version}"
	echo "kubernetes-validate --strict (Kubernetes ${version:-newest}): ${manifests[*]##*/} valid"
done

python3 - "$dir" <<'PY' || fail "kustomization.yaml does not match the manifests"
import os, sys, yaml

folder = sys.argv[1]
k = yaml.safe_load(open(os.path.join(folder, "kustomization.yaml")))
assert k["kind"] == "Kustomization", k["kind"]
files = sorted(f for f in os.listdir(folder) if f.endswith(".yaml") and f != "kustomization.yaml")
assert sorted(k["resources"]) == files, f"resources {k['resources']} != manifests {files}"
docs = [d for f in files for d in yaml.safe_load_all(open(os.path.join(folder, f))) if d]
images = {c["image"].rsplit(":", 1)[0] for d in docs if d["kind"] in ("Deployment", "StatefulSet")
          for c in d["spec"]["template"]["spec"]["containers"]}
named = {i["name"] for i in k.get("images", [])}
assert named <= images, f"images {named - images} are not used by any manifest"
deployments = {d["metadata"]["name"] for d in docs if d["kind"] == "Deployment"}
scaled = {r["name"] for r in k.get("replicas", [])}
assert scaled <= deployments, f"replicas for {scaled - deployments}, not a Deployment here"
namespaces = {d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"}
assert k["namespace"] in namespaces, f"namespace {k['namespace']} is not created"
for d in docs:
    ns = d["metadata"].get("namespace", k["namespace"])
    assert d["kind"] == "Namespace" or ns == k["namespace"], f"{d['kind']}/{d['metadata']['name']} in {ns}"
print(f"kustomization.yaml: lists {', '.join(files)}; images {', '.join(sorted(named))}; scales {', '.join(sorted(scaled))}")
PY

if command -v kubectl >/dev/null; then
	rendered=$(mktemp --suffix=.yaml)
	trap 'rm -f "$rendered"' EXIT
	kubectl kustomize "$dir" >"$rendered" || fail "kubectl kustomize"
	kubernetes-validate --strict --quiet "$rendered" || fail "the rendered kustomization is not valid"
	echo "kubectl kustomize: $(grep -c '^kind:' "$rendered") rendered resources valid"
else
	echo "kubectl is not installed: the kustomization was checked statically but not rendered"
fi
