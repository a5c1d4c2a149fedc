{
  # Tigers and Sheep: the coordinator, the worker and the tui, built from Cargo.lock; a dev
  # shell with the toolchain; an OCI image per server binary.
  #
  #   nix build .#coordinator          # result/bin/coordinator
  #   nix build .#worker               # result/bin/worker
  #   nix build .#tui                  # result/bin/tui
  #   nix build                        # all three binaries in one result/bin
  #   nix build .#coordinator-image && docker load < result    # tigers-coordinator:<version>
  #   nix build .#worker-image && docker load < result         # tigers-worker:<version>
  #   nix develop                      # cargo, rustc, clippy, rustfmt, rust-analyzer, ...
  #
  # See docs/deploy.md, including what of this was and was not built where it was written.
  description = "Tigers and Sheep: a self-play training cluster (coordinator, worker, tui)";

  inputs = {
    nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";
    # The workspace needs Rust 1.95 (rust-version in Cargo.toml); rust-overlay pins exactly that
    # toolchain rather than whatever rustc nixpkgs carries at the time.
    rust-overlay = {
      url = "github:oxalica/rust-overlay";
      inputs.nixpkgs.follows = "nixpkgs";
    };
  };

  outputs =
    {
      self,
      nixpkgs,
      rust-overlay,
    }:
    let
      # The images and the services are Linux only.
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f (pkgsFor system));
      pkgsFor =
        system:
        import nixpkgs {
          inherit system;
          overlays = [ rust-overlay.overlays.default ];
        };

      workspace = (builtins.fromTOML (builtins.readFile ./Cargo.toml)).workspace.package;
      version = workspace.version;
      rustVersion = "${workspace.rust-version}.0";

      toolchainFor =
        pkgs:
        pkgs.rust-bin.stable.${rustVersion}.default.override {
          extensions = [
            "rust-src"
            "rust-analyzer"
            "clippy"
            "rustfmt"
          ];
        };

      # The uid the images run as (the same as the Kubernetes manifests' runAsUser).
      imageUid = 65532;
    in
    {
      packages = forAllSystems (
        pkgs:
        let
          inherit (pkgs) lib;
          toolchain = toolchainFor pkgs;
          rustPlatform = pkgs.makeRustPlatform {
            cargo = toolchain;
            rustc = toolchain;
          };

          # Only what cargo needs: a change to docs/ or deploy/ does not rebuild anything.
          src = lib.fileset.toSource {
            root = ./.;
            fileset = lib.fileset.unions [
              ./Cargo.toml
              ./Cargo.lock
              ./core
              ./proto
              ./process
              ./worker
              ./coordinator
              ./tui
            ];
          };

          # One binary of the workspace. Dependencies come from Cargo.lock (all from crates.io,
          # no git sources, so no outputHashes). rusqlite's `bundled` SQLite is compiled by
          # stdenv's C compiler, ring's too; the .proto files are compiled by protox, in Rust,
          # so neither protoc nor a system SQLite is needed.
          rustBinary =
            {
              cargoPackage,
              bin,
              description,
            }:
            rustPlatform.buildRustPackage {
              pname = bin;
              inherit version src;
              cargoLock.lockFile = ./Cargo.lock;
              cargoBuildFlags = [
                "--package"
                cargoPackage
                "--bin"
                bin
              ];
              # The test suite starts processes, binds ports and trains for minutes; CI runs it
              # with `cargo test --workspace` (.ci/run), not the Nix sandbox.
              doCheck = false;
              meta = {
                inherit description;
                homepage = workspace.repository;
                license = with lib.licenses; [
                  mit
                  asl20
                ];
                mainProgram = bin;
                platforms = lib.platforms.linux;
              };
            };

          coordinator = rustBinary {
            cargoPackage = "tigers-coordinator";
            bin = "coordinator";
            description = "Tigers and Sheep: trains, gates and serves nets to self-play workers";
          };
          worker = rustBinary {
            cargoPackage = "tigers-worker";
            bin = "worker";
            description = "Tigers and Sheep: a self-play worker that streams samples to a coordinator";
          };
          tui = rustBinary {
            cargoPackage = "tigers-tui";
            bin = "tui";
            description = "Tigers and Sheep in the terminal: play the latest net";
          };

          # A minimal image: the binary (linked in /bin), a writable /tmp and a state directory
          # owned by the image's user. No CA certificates: the worker trusts only the
          # certificate given with --tls-ca, which a deployment mounts.
          serverImage =
            {
              name,
              package,
              stateDir,
              cmd,
              ports ? { },
            }:
            pkgs.dockerTools.buildLayeredImage {
              inherit name;
              tag = version;
              contents = [ package ];
              fakeRootCommands = ''
                mkdir -p ./tmp .${stateDir}
                chmod 1777 ./tmp
                chown -R ${toString imageUid}:${toString imageUid} ./var/lib/tigers
              '';
              config = {
                Entrypoint = [ "/bin/${package.meta.mainProgram}" ];
                Cmd = cmd;
                User = "${toString imageUid}:${toString imageUid}";
                WorkingDir = stateDir;
                Env = [
                  "PATH=/bin"
                  "RUST_LOG=info"
                ];
                ExposedPorts = ports;
                Volumes = {
                  ${stateDir} = { };
                };
              };
            };
        in
        {
          inherit coordinator worker tui;

          default = pkgs.symlinkJoin {
            name = "tigers-and-sheep-${version}";
            paths = [
              coordinator
              worker
              tui
            ];
          };

          # Set TIGERS_TOKEN when running it; the run directory is the volume /var/lib/tigers.
          coordinator-image = serverImage {
            name = "tigers-coordinator";
            package = coordinator;
            stateDir = "/var/lib/tigers";
            cmd = [
              "--listen"
              "0.0.0.0:50051"
              "--run-dir"
              "/var/lib/tigers/run"
              "--headless"
              "--log-json"
            ];
            ports = {
              "50051/tcp" = { };
            };
          };

          # Set TIGERS_TOKEN and give `--connect URL` (the arguments replace this Cmd).
          worker-image = serverImage {
            name = "tigers-worker";
            package = worker;
            stateDir = "/var/lib/tigers/worker";
            cmd = [
              "--connect"
              "http://coordinator:50051"
              "--state-dir"
              "/var/lib/tigers/worker"
              "--log-json"
            ];
          };
        }
      );

      # `nix flake check` builds every package (and so both images).
      checks = forAllSystems (pkgs: self.packages.${pkgs.stdenv.hostPlatform.system});

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [
            (toolchainFor pkgs)
            pkgs.cargo-nextest
            # .ci/run's net check and the ledger: Python with safetensors and numpy, sqlite3.
            (pkgs.python3.withPackages (ps: [
              ps.safetensors
              ps.numpy
            ]))
            pkgs.sqlite
            # The deployment checks: systemd-analyze, ip netns, kubectl kustomize.
            pkgs.systemd
            pkgs.iproute2
            pkgs.kubectl
          ];
          RUST_BACKTRACE = "1";
        };
      });
    };
}
