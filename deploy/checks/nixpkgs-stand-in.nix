# A stand-in for nixpkgs, for checking flake.nix where nixpkgs cannot be fetched: every builder
# the flake calls returns its own arguments, so its outputs evaluate and can be inspected
# (see flake.sh). It says nothing about whether the real builders accept those arguments.
{ system, overlays }:
let
  lib = {
    genAttrs =
      names: f:
      builtins.listToAttrs (
        map (name: {
          inherit name;
          value = f name;
        }) names
      );
    fileset = {
      toSource = args: args;
      unions = paths: paths;
    };
    licenses = {
      mit = "mit";
      asl20 = "asl20";
    };
    platforms.linux = [
      "x86_64-linux"
      "aarch64-linux"
    ];
  };
in
{
  inherit lib;
  stdenv.hostPlatform.system = system;
  rust-bin.stable."1.95.0".default.override = args: { toolchain = args; };
  makeRustPlatform = toolchain: {
    buildRustPackage = args: args // { builder = "buildRustPackage"; };
  };
  dockerTools.buildLayeredImage = args: args // { builder = "buildLayeredImage"; };
  symlinkJoin = args: args;
  mkShell = args: args;
  python3.withPackages = f: f {
    safetensors = "safetensors";
    numpy = "numpy";
  };
  cargo-nextest = "cargo-nextest";
  sqlite = "sqlite";
  systemd = "systemd";
  iproute2 = "iproute2";
  kubectl = "kubectl";
}
