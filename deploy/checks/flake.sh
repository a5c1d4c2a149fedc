#!/usr/bin/env bash
# Checks flake.nix as far as a machine without the Nix binary cache or GitHub can:
# - `nix-instantiate --parse`: the syntax, and every variable bound (Nix resolves names when it
#   parses);
# - its outputs evaluated against a stand-in for nixpkgs (nixpkgs-stand-in.nix, whose builders
#   return their arguments): the packages, images, checks and dev shell exist for each system,
#   each package builds its own binary of the right Cargo package from Cargo.lock, and the
#   images run that binary as the non-root user the Kubernetes manifests expect.
# A real `nix build` (fetching nixpkgs, rust-overlay and the crates) is not done here.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

if ! command -v nix-instantiate >/dev/null; then
	apt-get install -y -qq nix-bin >/dev/null
fi

nix-instantiate --parse flake.nix >/dev/null
echo "nix-instantiate --parse flake.nix: ok"

nix-instantiate --eval --strict --json - >/dev/null <<'NIX'
let
  flake = import ./flake.nix;
  standIn = ./deploy/checks/nixpkgs-stand-in.nix;
  nixpkgs = {
    outPath = standIn;
    lib = (import standIn { system = "x86_64-linux"; overlays = [ ]; }).lib;
  };
  out = flake.outputs {
    self = out;
    inherit nixpkgs;
    rust-overlay.overlays.default = null;
  };
  expect = what: ok: if ok then true else throw "flake.nix: ${what}";
  cargo = builtins.fromTOML (builtins.readFile ./Cargo.toml);
  members = cargo.workspace.members;
  checkSystem =
    system:
    let
      p = out.packages.${system};
      binary =
        name: cargoPackage:
        expect "${name} builds --package ${cargoPackage} --bin ${name} from Cargo.lock" (
          p.${name}.cargoBuildFlags == [ "--package" cargoPackage "--bin" name ]
          && p.${name}.cargoLock.lockFile == ./Cargo.lock
          && p.${name}.pname == name
          && p.${name}.version == cargo.workspace.package.version
          && builtins.elem (builtins.replaceStrings [ "tigers-" ] [ "" ] cargoPackage) members
        );
      image =
        name: bin:
        expect "${name} runs /bin/${bin} as uid 65532" (
          p.${name}.builder == "buildLayeredImage"
          && p.${name}.config.Entrypoint == [ "/bin/${bin}" ]
          && p.${name}.config.User == "65532:65532"
          && builtins.elem p.${bin} p.${name}.contents
        );
    in
    [
      (binary "coordinator" "tigers-coordinator")
      (binary "worker" "tigers-worker")
      (binary "tui" "tigers-tui")
      (image "coordinator-image" "coordinator")
      (image "worker-image" "worker")
      (expect "default has the three binaries" (builtins.length p.default.paths == 3))
      (expect "checks cover every package" (
        builtins.attrNames out.checks.${system} == builtins.attrNames p
      ))
      (expect "the dev shell has the Rust toolchain with clippy and rustfmt" (
        builtins.any (
          x: builtins.isAttrs x && x ? toolchain && builtins.elem "clippy" x.toolchain.extensions
        ) out.devShells.${system}.default.packages
      ))
    ];
in
expect "packages for x86_64-linux and aarch64-linux" (
  builtins.attrNames out.packages == [ "aarch64-linux" "x86_64-linux" ]
)
&& builtins.all (x: x) (builtins.concatMap checkSystem (builtins.attrNames out.packages))
NIX
echo "flake.nix outputs (against a stand-in nixpkgs): coordinator, worker, tui, coordinator-image, worker-image, default, checks, devShells for x86_64-linux and aarch64-linux"
